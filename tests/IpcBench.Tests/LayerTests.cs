using System.Xml.Linq;

namespace IpcBench.Tests;

/// <summary>
/// IpcBench's layers are assemblies that reference one way, and the compiler holds each to that: the contract (what a
/// transport implements) references nothing, the kit (what transports share) the contract, the harness (what measures)
/// the kit. What the compiler cannot see is a project that reaches up: a transport referencing the harness, say. Each
/// project here may reference only the projects named for it.
/// </summary>
public class LayerTests
{
    [Theory]
    [InlineData("src/IpcBench.Contract", "")]
    [InlineData("src/IpcBench.Kit", "IpcBench.Contract")]
    [InlineData("src/IpcBench.Harness", "IpcBench.Kit")]
    [InlineData("transports", "IpcBench.Kit IpcBench.Transports.Kestrel IpcBench.Transports.Pipes IpcBench.Transports.Wcf.Host")]
    public void A_layer_references_nothing_of_the_layers_above_it(string folder, string allowed)
    {
        var projects = Directory.EnumerateFiles(Path.Combine(DockerFilesTests.RepositoryRoot(), folder), "*.csproj", SearchOption.AllDirectories).ToList();
        var offences = (
            from project in projects
            from reference in XDocument.Load(project).Descendants("ProjectReference")
            let name = Path.GetFileNameWithoutExtension(reference.Attribute("Include")!.Value.Replace('\\', '/'))
            where !allowed.Split(' ', StringSplitOptions.RemoveEmptyEntries).Contains(name)
            select $"{Path.GetRelativePath(DockerFilesTests.RepositoryRoot(), project)} references {name}").ToList();
        Assert.True(projects.Count > 0, $"{folder} holds no project: the layer moved, and this test checks nothing");
        Assert.True(offences.Count == 0, string.Join("\n", offences));
    }
}
