using YamlDotNet.RepresentationModel;

namespace IpcBench.Tests;

/// <summary>Reading parsed YAML (compose files, workflows, manifests) the way the tools that run them do.</summary>
internal static class YamlNodes
{
    /// <summary>The one document of the YAML file at <paramref name="path"/>, a mapping.</summary>
    public static YamlMappingNode Load(string path)
    {
        var stream = new YamlStream();
        using var reader = new StreamReader(path);
        stream.Load(reader);
        return (YamlMappingNode)stream.Documents.Single().RootNode;
    }

    /// <summary>The node at <paramref name="path"/>, looking through YAML merge keys (<c>&lt;&lt;: *anchor</c>) as compose does.</summary>
    public static YamlNode? Get(YamlNode? node, params string[] path)
    {
        foreach (string key in path)
        {
            node = node is YamlMappingNode map ? Member(map, key) : null;
        }
        return node;
    }

    public static YamlNode? Member(YamlMappingNode map, string key) =>
        map.Children.TryGetValue(key, out var value) ? value
        : map.Children.TryGetValue("<<", out var merged) && merged is YamlMappingNode parent ? Member(parent, key)
        : null;

    public static string Text(YamlNode? node) => node is YamlScalarNode { Value: { } v } ? v : "";

    public static IEnumerable<string> Items(YamlNode? node) => node is YamlSequenceNode seq ? seq.Children.Select(Text) : [];
}
