using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Results;
using IpcBench.Kit;

namespace IpcBench.Harness.Running;

/// <summary>A case's server, started (null: the spec names one), and the address its client calls; disposing stops the server.</summary>
public sealed record PreparedCase(LocalServer? Server, Uri Address, string PlacementDescription) : IAsyncDisposable
{
    public ValueTask DisposeAsync() => Server?.DisposeAsync() ?? ValueTask.CompletedTask;
}

/// <summary>What a case measured, and where: what a run's record needs beside the case's figures.</summary>
/// <param name="Address">The address the client called (the server's, with the client's options).</param>
public sealed record CaseOutcome(CaseResult Case, LoopResult Loop, string PlacementDescription, string? IsolationDescription, Uri Address);

/// <summary>
/// The one runner: a <see cref="CaseSpec"/> in, its <see cref="CaseResult"/> out. It owns the one place that says why a
/// case does not run here (<see cref="RefusesAsync"/>), which scenario runs (steady, connect, start, under load, an open
/// loop, client processes), and the warm-up (<see cref="WarmUp"/>, inside each loop). <c>ping</c>, a plan, and a client
/// process handed its share all run through it; the suite's benchmarks take its refusals, its server and its record.
/// </summary>
public static class CaseRunner
{
    /// <summary>Why <paramref name="spec"/> cannot run here (a missing broker, a payload too large, an isolation it cannot cross), or null.</summary>
    public static async Task<string?> RefusesAsync(ITransport transport, CaseSpec spec, CancellationToken ct)
    {
        if (await ServerWait.UnsupportedReasonAsync(transport, spec.Server, spec.WaitForServer, ct).ConfigureAwait(false) is { } reason)
        {
            return $"{transport.Name} does not run here: {reason}";
        }
        return Refuses(transport, spec);
    }

    /// <summary><see cref="RefusesAsync"/> but for the probe: what the transport, the machine and the build say of the spec.</summary>
    public static string? Refuses(ITransport transport, CaseSpec spec)
    {
        var (key, name, caps) = (spec.Key, transport.Name, transport.Capabilities);
        bool local = spec.Server is null;
        if (key.Runtime == ClientRuntime.NativeAot && transport.NativeAotUnsupportedReason is { } noAot)
        {
            return $"{name} does not run in a NativeAOT build: {noAot}";
        }
        if (spec.ClientBuild is { } build && ClientRuntime.Build(build) is null)
        {
            return ClientRuntime.Missing(build);
        }
        if ((caps.RejectSize(key.Size) ?? (key.ReplySize is int reply ? caps.RejectReplySize(reply, key.Size) : null)) is { } size)
        {
            return $"{name} cannot carry this payload: {size}";
        }
        if (caps.Has(TransportFeatures.InProcess) && (!local || key.ClientProcesses > 1 || spec.ClientBuild is not null))
        {
            return $"{name} is not IPC: its server is the handler in this process, which no other process reaches";
        }
        if (local && transport.ServerUnsupportedReason is { } noServer)
        {
            return $"{name}'s server does not run here: {noServer}";
        }
        if (Isolations.Parse(key.Isolation ?? "none") is { } isolation && isolation.Refuses(transport) is { } notHere)
        {
            return $"{name} is not supported in isolation {isolation.Name()} here: {notHere}";
        }
        return (caps.RejectClients(key.Clients) ?? caps.RejectInFlight(key.InFlight)) is { } load ? $"{name} cannot run this load: {load}" : null;
    }

    /// <summary>
    /// Runs <paramref name="spec"/>, which <see cref="RefusesAsync"/> let through: pins this process, starts the server
    /// (unless the spec names one), connects, warms up, measures, stops the server.
    /// </summary>
    /// <param name="serverLog">Where the server's stderr lines go as they come.</param>
    public static async Task<CaseOutcome> RunAsync(ITransport transport, CaseSpec spec, Action<double>? progress, Action<string>? serverLog,
        CancellationToken ct)
    {
        await using var prepared = await PrepareAsync(transport, spec, serverLog, ct).ConfigureAwait(false);
        var loop = await MeasureAsync(transport, spec, prepared.Address, prepared.Server?.Process, progress, ct).ConfigureAwait(false);
        return new CaseOutcome(Figures.Case(spec.Key, transport.Family, loop), loop, prepared.PlacementDescription,
            prepared.Server?.IsolationDescription, prepared.Address);
    }

    /// <summary>
    /// What a case measures against, made ready: this process pinned as the placement says (before the server starts, so
    /// that nothing runs unpinned), the server started where the isolation says (unless the spec names one), and the
    /// address the client calls. The suite's benchmarks measure against it step by step.
    /// </summary>
    public static async Task<PreparedCase> PrepareAsync(ITransport transport, CaseSpec spec, Action<string>? serverLog, CancellationToken ct)
    {
        _ = TieringMonitor.Process; // listening before the client's first connection, whose new code starts the JIT's pause
        var options = spec.OptionValues(transport);
        var placement = Placements.Parse(spec.Key.Placement);
        bool local = spec.Server is null;
        WarnOfSameCore(transport, options, placement);
        var (clientCpu, serverCpu) = placement.Cpus(serverLocal: local);
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu);
        }
        var isolation = Isolations.Parse(spec.Key.Isolation ?? "none")!.Value;
        // Options that shape both ends go to the server; the client takes every one.
        var server = local
            ? await LocalServer.StartAsync(transport, isolation, options.Given(OptionScope.BothEnds), serverCpu, serverLog, ct, spec.Key.ReplySize)
                .ConfigureAwait(false)
            : null;
        var address = AddressQuery.With(spec.Server ?? server!.Address, options.Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit));
        return new PreparedCase(server, address, placement.Describe(serverLocal: local));
    }

    private static async Task<LoopResult> MeasureAsync(ITransport transport, CaseSpec spec, Uri address, Kit.Processes.ServerProcess? server,
        Action<double>? progress, CancellationToken ct)
    {
        try
        {
            var loop = spec.Loop(transport);
            var first = await ServerWait.ConnectAsync(transport, address, spec.WaitForServer, ct).ConfigureAwait(false);
            if (spec.Key.Scenario == CaseKey.Steady)
            {
                return await SteadyAsync(transport, spec, address, first, progress, ct).ConfigureAwait(false);
            }
            await first.DisposeAsync().ConfigureAwait(false); // the server is up: each cycle now connects anew
            return spec.Key.Scenario == CaseKey.Connect
                ? await ConnectLoop.RunAsync(transport, address, loop, progress, ct).ConfigureAwait(false)
                : await StartScenario.RunAsync(ClientBuild(spec) ?? ClientRuntime.Self(), transport, spec with { Server = address }, progress, ct)
                    .ConfigureAwait(false);
        }
        catch (TransportException e) when (server is { HasExited: true })
        {
            throw new TransportException($"{e.Message}; the server process exited: {server.RecentErrors}");
        }
        catch (TransportTimeoutException) when (server is not null)
        {
            // It stopped answering (frozen, stuck): a graceful stop would only wait out its stop timeout before the error is told.
            server.Kill();
            throw;
        }
    }

    /// <summary>The steady scenario under the load asked for: the clients in this process, or spread over client processes.</summary>
    private static async Task<LoopResult> SteadyAsync(ITransport transport, CaseSpec spec, Uri address, IConnection first,
        Action<double>? progress, CancellationToken ct)
    {
        var connections = new List<IConnection> { first };
        try
        {
            if (spec.Key.ClientProcesses > 1 || spec.ClientBuild is not null)
            {
                return await ClientProcessScenario.RunAsync(ClientBuild(spec) ?? ServerCommand.Resolve(), transport, spec with { Server = address }, first, ct)
                    .ConfigureAwait(false);
            }
            while (connections.Count < spec.Key.Clients)
            {
                connections.Add(await transport.ConnectAsync(address, ct).ConfigureAwait(false));
            }
            return await LoadLoop.RunAsync(connections, spec.Loop(transport), progress, ct).ConfigureAwait(false);
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static ServerCommand? ClientBuild(CaseSpec spec) =>
        spec.ClientBuild is { } runtime ? ClientRuntime.Build(runtime) ?? throw new InvalidOperationException(ClientRuntime.Missing(runtime)) : null;

    /// <summary>An option given whose value wants a CPU per side (mmf's wait=spin) at same-core placement: said, not refused.</summary>
    private static void WarnOfSameCore(ITransport transport, OptionValues options, Placement placement)
    {
        if (placement != Placement.SameCore)
        {
            return;
        }
        foreach (var option in Contract.Options.OptionValues.Of(transport).Where(options.IsGiven))
        {
            if (option.SameCoreAdvice.TryGetValue(options[option], out string? advice))
            {
                Log.Warn(advice);
            }
        }
    }
}
