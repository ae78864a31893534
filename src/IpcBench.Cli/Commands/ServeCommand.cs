using System.CommandLine;
using System.Runtime.InteropServices;
using IpcBench.Cli.Parsing;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit;
using IpcBench.Kit.Files;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench serve</c>: an echo server that says <c>READY &lt;uri&gt;</c> once clients can connect.</summary>
internal static class ServeCommand
{
    public const string Name = ServeRequest.Verb;

    public static Command Create()
    {
        var transport = TransportArgument.Create();
        var address = Options.Uri(ServeRequest.AddressOption, "the address to bind (default: the transport's, e.g. tcp://127.0.0.1:0, a free port; "
            + "uds:///tmp/ipcbench-*/s.sock, a fresh private directory)");
        var flags = new TransportOptionFlags(OptionScope.BothEnds);
        var cpu = Options.Int(ServeRequest.CpuOption, "pin the server process to CPU N", -1, 0);
        var parentPid = Options.Int(ServeRequest.ParentPidOption, "stop when process PID exits or stdin closes (set by 'ipcbench ping')", 0, 1);
        var replySize = Options.OptionalSize(ServeRequest.ReplySizeOption, "answer every request with this many bytes instead of its echo (ping --reply-size): 1, 1KB, 100KB ...",
            Kit.Framing.LengthPrefix.DefaultMaxPayload);
        var waitForDependencies = Options.Duration("--wait-for-dependencies",
            "wait up to this long, e.g. 120s, for what the transport needs and does not find yet (amqp: a broker still booting in another container)");
        // No teardown bound: serve stops on handlers of its own. System.CommandLine registers its handlers before it starts
        // the action but knows the action's task only once the action first yields, and a signal in between ends the
        // process at once with 143; serve first yields when it is serving, after READY, so a SIGTERM just after READY did
        // that, its files left behind.
        var command = new Verb(Name, teardown: null, description: """
            Serves echo requests (or replies of --reply-size) until SIGTERM or SIGINT, or until its parent process dies. Prints exactly one line on stdout,
            READY <uri>, once it accepts connections; diagnostics go to stderr.
            """) { transport, address, cpu, parentPid, replySize, waitForDependencies };
        flags.AddTo(command);
        command.SetAction((parsed, _) => RunAsync(TransportArgument.Resolve(parsed.GetValue(transport)!), parsed, flags,
            parsed.GetValue(address), parsed.GetValue(cpu), parsed.GetValue(parentPid), parsed.GetValue(waitForDependencies),
            parsed.GetValue(replySize)));
        return command;
    }

    /// <summary>serve's SIGTERM and SIGINT handlers, kept for the life of the process.</summary>
    private static PosixSignalRegistration[] _signals = [];

    private static async Task<int> RunAsync(Contract.ITransport transport, ParseResult parsed, TransportOptionFlags flags, Uri? address,
        int cpu, int parentPid, TimeSpan patience, int? replySize)
    {
        if (await ServerWait.UnsupportedReasonAsync(transport, address, patience, CancellationToken.None) is { } reason)
        {
            throw new UnsupportedException($"{transport.Name} does not run here: {reason}");
        }
        if (transport.ServerUnsupportedReason is { } serverReason)
        {
            throw new UnsupportedException($"{transport.Name}'s server does not run here: {serverReason}");
        }
        if (transport.Capabilities.Has(Contract.TransportFeatures.InProcess))
        {
            throw new UnsupportedException($"{transport.Name} has no server process: its handler runs in the client's own process (ping starts it there)");
        }
        if (replySize is int r && transport.Capabilities.RejectReplySize(r, -1) is { } noSuchReply)
        {
            throw new UnsupportedException($"{transport.Name} cannot send these replies: {noSuchReply}");
        }
        var bind = address ?? transport.DefaultAddress();
        bind = AddressQuery.With(bind, flags.Parse(parsed, transport, bind).Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit));
        if (cpu >= 0)
        {
            CpuAffinity.PinCurrentProcess(cpu);
        }
        OwnerOnlyFiles.ForThisProcess();

        // These are serve's only handlers (System.CommandLine's are off for serve: Create says why). They stay for
        // the rest of the process, not just this method: a SIGTERM that arrives once the server is already stopping (a
        // second one, or the first while another cause ends it) must not meet the default action, which ends the process
        // with 143 before it has removed its files.
        var stop = new CancellationTokenSource();
        _signals = [PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop), PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop)];
        void Stop(PosixSignalContext context)
        {
            context.Cancel = true; // shut down cleanly: the server removes its files
            stop.Cancel();
        }

        double delayUs = ServerStats.TestDelayUs();
        if (delayUs > 0)
        {
            Log.Warn($"test-only: each reply is delayed by {delayUs} us ({ServerStats.TestDelayVariable}); quote no figure of this server");
        }
        await using var server = await transport.StartServerAsync(bind, ServerStats.For(replySize, delayUs), stop.Token);
        Console.Out.WriteLine($"READY {server.Address.AbsoluteUri}"); // escaped, so that it parses back to the same address
        Console.Out.Flush();

        // Without --parent-pid, still stop if whoever started us goes away (unless that is init).
        int watched = parentPid > 0 ? parentPid : ParentWatch.CurrentParentPid() ?? 0;
        var parentGone = ParentWatch.WhenGoneAsync(watched, watchStdin: parentPid > 0, stop.Token);
        var lost = server.Lost;
        var ended = await Task.WhenAny(parentGone, Task.Delay(Timeout.Infinite, stop.Token), lost);
        await stop.CancelAsync();
        if (ended == lost)
        {
            throw new TransportException($"the {transport.Name} server stopped serving: {await lost}");
        }
        return ExitCodes.Success;
    }
}
