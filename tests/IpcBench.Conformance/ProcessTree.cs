namespace IpcBench.Conformance;

/// <summary>The processes under a server process, as Linux lists them (the wcf server is a host that 'ipcbench serve' starts).</summary>
public static class ProcessTree
{
    /// <summary>The direct children of <paramref name="pid"/>; none where /proc does not say.</summary>
    public static int[] Children(int pid)
    {
        string children = $"/proc/{pid}/task/{pid}/children";
        return File.Exists(children)
            ? File.ReadAllText(children).Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(int.Parse).ToArray()
            : [];
    }

    /// <summary>Every process under <paramref name="pid"/>, children first.</summary>
    public static IEnumerable<int> Descendants(int pid)
    {
        int[] direct = Children(pid);
        return direct.Concat(direct.SelectMany(Descendants));
    }
}
