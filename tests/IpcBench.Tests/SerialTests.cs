// The test classes here run one at a time. Most of them start processes (pings, servers, ip, kill), and two classes
// doing so side by side have hung the test host again and again, last on 2026-11-26 (CredentialTests beside
// IsolationTests): the hang dump shows .NET's SIGCHLD handler looping in ProcessWaitState.CheckChildren and TryReapChild
// with the process-start lock held, one test waiting in Process.Start for that lock and another in Process.Kill. Keeping
// IsolationTests and CliTests apart was not enough: every class that starts a process would have to be.
[assembly: Xunit.v3.Parallelization(Mode = Xunit.Sdk.ParallelMode.None)]
