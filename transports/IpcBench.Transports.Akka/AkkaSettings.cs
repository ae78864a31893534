using Akka.Configuration;

namespace IpcBench.Transports.Akka;

/// <summary>
/// The configuration both ends' ActorSystems run with: Akka.Remote's defaults (its DotNetty TCP transport, its frame size,
/// its serializers: a byte[] goes through ByteArraySerializer), with only what IpcBench needs changed: the address to bind,
/// and Akka's own logging off, as it writes to stdout, which IpcBench's output owns (serve's READY line, ping's JSON). A
/// failure reaches the caller as an exception instead.
/// </summary>
internal static class AkkaSettings
{
    /// <summary>The server's ActorSystem's name, part of every actor path in it.</summary>
    public const string ServerSystem = "ipcbench-server";

    /// <summary>The echo actor's name under /user.</summary>
    public const string EchoActor = "echo";

    /// <summary>
    /// The largest frame Akka.Remote sends or takes by default (<c>akka.remote.dot-netty.tcp.maximum-frame-size</c>, 128000
    /// bytes): a larger message is dropped by its sender with a log line only.
    /// </summary>
    public const int MaximumFrameSize = 128_000;

    public static Config Remote(string hostname, int port) => ConfigurationFactory.ParseString($$"""
        akka {
          loglevel = OFF
          stdout-loglevel = OFF
          log-dead-letters = off
          log-dead-letters-during-shutdown = off
          actor.provider = remote
          remote {
            log-remote-lifecycle-events = off
            dot-netty.tcp {
              hostname = "{{hostname}}"
              port = {{port}}
            }
          }
        }
        """);
}
