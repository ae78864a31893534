using System.CommandLine;

namespace IpcBench.Cli;

/// <summary>
/// A verb of <c>ipcbench</c> that says how long its teardown may run after SIGINT or SIGTERM (any other verb gets
/// <see cref="DefaultTeardown"/>). System.CommandLine cancels the action's token on the signal and ends the process with
/// 128 + the signal once this time has passed; null leaves it to the verb's own handlers (serve).
/// </summary>
internal sealed class Verb(string name, string description, TimeSpan? teardown) : Command(name, description)
{
    /// <summary>
    /// Long enough for a server to stop and remove its files (2 s, System.CommandLine's default, cut a gRPC server's
    /// stop short), short enough that nothing hangs.
    /// </summary>
    public static readonly TimeSpan DefaultTeardown = TimeSpan.FromSeconds(10);

    public TimeSpan? Teardown { get; } = teardown;

    /// <summary>The teardown bound of the verb a command line names.</summary>
    public static TimeSpan? TeardownOf(Command command) => command is Verb verb ? verb.Teardown : DefaultTeardown;
}
