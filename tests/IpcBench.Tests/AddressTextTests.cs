using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;

namespace IpcBench.Tests;

/// <summary>
/// An address that names a file goes from process to process as text (serve's --address, its READY line) and must
/// name the same file at the other end, whatever characters the path holds. Uri.ToString() unescapes, so a folder
/// named "x%41" (a temporary folder's random suffix after a '%') came back as "xA".
/// </summary>
public class AddressTextTests
{
    public static TheoryData<string> Paths
    {
        get
        {
            var paths = new TheoryData<string>("/tmp/ipcbench-test ,;=%41b2/bus", "/tmp/a%ab/s.sock", "/tmp/a%25b/s.sock", "/tmp/a%zz/s.sock",
                "/tmp/what?/s.sock", "/tmp/#1/s.sock", "/tmp/plain/s.sock");
            if (!OperatingSystem.IsWindows())
            {
                paths.Add("/tmp/back\\slash/s.sock"); // a name's character, not a separator, off Windows
            }
            return paths;
        }
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public void A_path_made_an_address_names_the_same_path(string path) =>
        Assert.Equal(path, PathAddress.ToPath(PathAddress.ToUri("uds", path)));

    [Theory]
    [MemberData(nameof(Paths))]
    public void A_serve_address_option_parses_back_to_the_same_path(string path)
    {
        string[] arguments = [.. new ServeRequest("uds") { Address = PathAddress.ToUri("uds", path) }.Arguments()];
        string text = arguments[Array.IndexOf(arguments, ServeRequest.AddressOption) + 1];

        Assert.Equal(path, PathAddress.ToPath(new Uri(text)));
    }
}
