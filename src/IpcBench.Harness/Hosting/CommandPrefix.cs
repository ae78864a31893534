using System.Diagnostics;

namespace IpcBench.Harness.Hosting;

/// <summary>A command run by another program (ip netns exec, unshare, taskset, runsc do ...), its environment kept.</summary>
public static class CommandPrefix
{
    /// <summary><paramref name="info"/>'s program and arguments after <paramref name="prefix"/>, with <paramref name="info"/>'s environment.</summary>
    public static ProcessStartInfo Under(this ProcessStartInfo info, params string[] prefix)
    {
        var wrapped = new ProcessStartInfo(prefix[0], [.. prefix[1..], info.FileName, .. info.ArgumentList]);
        foreach (var (key, value) in info.Environment)
        {
            wrapped.Environment[key] = value;
        }
        return wrapped;
    }
}
