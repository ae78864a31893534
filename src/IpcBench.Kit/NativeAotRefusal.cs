using IpcBench.Contract;

namespace IpcBench.Kit;

/// <summary>
/// For a transport whose library a NativeAOT build cannot run (<see cref="ITransport.NativeAotUnsupportedReason"/>). Its
/// entry points test <see cref="System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported"/> themselves, in a
/// method that is not async: the NativeAOT compiler folds that test to false and then leaves out the branch that calls
/// the library, and with it the library, rather than compile what would never run (Orleans and Akka cost the NativeAOT
/// build minutes). The harness refuses such a case before it connects; this is what the other branch throws.
/// </summary>
public static class NativeAotRefusal
{
    public static NotSupportedException For(ITransport transport) =>
        new($"{transport.Name} does not run in a NativeAOT build: {transport.NativeAotUnsupportedReason}");
}
