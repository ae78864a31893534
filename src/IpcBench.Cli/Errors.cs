namespace IpcBench.Cli;

/// <summary>A mistake in how the command was called: reported in one line with exit code 2.</summary>
public sealed class UsageException(string message) : Exception(message);

/// <summary>What was asked cannot run on this machine or transport: reported with exit code 3.</summary>
public sealed class UnsupportedException(string message) : Exception(message);

/// <summary>The exit codes every verb keeps.</summary>
public static class ExitCodes
{
    public const int Success = 0;

    /// <summary>The run failed: a server unreachable or dead, a bad reply (compare: a case got slower).</summary>
    public const int Failed = 1;

    /// <summary>Bad options or operands (compare: runs that are not comparable).</summary>
    public const int Usage = 2;

    /// <summary>The transport or size does not run here.</summary>
    public const int Unsupported = 3;

    /// <summary>Interrupted (SIGINT, SIGTERM) before it finished: 128 + SIGINT, as shells report it.</summary>
    public const int Interrupted = 130;
}
