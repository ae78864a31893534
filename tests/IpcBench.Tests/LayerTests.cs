using System.Text.RegularExpressions;

namespace IpcBench.Tests;

/// <summary>
/// IpcBench.Core's layers reference one way, read from the sources: the contract (what a transport implements) nothing of
/// the kit or the harness; the kit (what transports share) nothing of the harness; no transport the harness. A
/// <c>using</c>, a qualified name or a cref against the grain fails, naming the file and line.
/// </summary>
public class LayerTests
{
    [Theory]
    [InlineData("src/IpcBench.Core/Contract", "Kit")]
    [InlineData("src/IpcBench.Core/Contract", "Harness")]
    [InlineData("src/IpcBench.Core/Kit", "Harness")]
    [InlineData("transports", "Harness")]
    public void A_layer_references_nothing_of_the_layers_above_it(string folder, string above)
    {
        var against = new Regex($@"\b(IpcBench\.)?(Core\.)?{above}\.[A-Z]");
        var offences = (
            from file in Directory.EnumerateFiles(Path.Combine(DockerFilesTests.RepositoryRoot(), folder), "*.cs", SearchOption.AllDirectories)
            where !file.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}")
                && !file.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}")
            from line in File.ReadLines(file).Select((text, i) => (Text: text, Number: i + 1))
            where against.IsMatch(line.Text)
            select $"{Path.GetRelativePath(DockerFilesTests.RepositoryRoot(), file)}:{line.Number}: {line.Text.Trim()}").ToList();
        Assert.True(Directory.EnumerateFiles(Path.Combine(DockerFilesTests.RepositoryRoot(), folder), "*.cs", SearchOption.AllDirectories).Any(),
            $"{folder} holds no source: the layer moved, and this test checks nothing");
        Assert.True(offences.Count == 0, $"{folder} references {above}:\n{string.Join("\n", offences)}");
    }
}
