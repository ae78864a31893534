using IpcBench.Contract.Options;

namespace IpcBench.Tests;

/// <summary>
/// The broker credentials a user configures (IPCBENCH_RABBITMQ_URI, IPCBENCH_NATS_URL, IPCBENCH_REDIS_URL) go to that
/// broker only: a --server that names another host or port, without credentials of its own, is sent none of them.
/// </summary>
public class BrokerLoginTests
{
    private const string Password = "configured-s3cret";

    [Theory]
    [InlineData("redis://127.0.0.1:6379/", true)]
    [InlineData("redis://localhost/", true)]
    [InlineData("redis://127.0.0.1:6380/", false)]
    [InlineData("redis://169.254.77.20:6379/", false)]
    public void Redis_logs_in_with_the_configured_password_only_at_the_configured_server(string address, bool sent)
    {
        var options = WithVariable("IPCBENCH_REDIS_URL", $"redis://:{Password}@127.0.0.1:6379",
            () => Transports.Redis.RedisBroker.Options(new Uri(address), false, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1), "test"));
        Assert.Equal(sent ? Password : null, options.Password);
    }

    [Fact]
    public void Redis_over_a_socket_logs_in_with_the_configured_password_only_at_the_configured_socket()
    {
        string configured = WithVariable("IPCBENCH_REDIS_SOCKET", "/run/redis/configured.sock", () =>
            WithVariable("IPCBENCH_REDIS_URL", $"redis://:{Password}@127.0.0.1:6379", () =>
                Transports.Redis.RedisBroker.Options(new Uri("redis-uds:///run/redis/configured.sock"), true, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1), "t").Password
                + "|" + Transports.Redis.RedisBroker.Options(new Uri("redis-uds:///tmp/elsewhere.sock"), true, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1), "t").Password));
        Assert.Equal(Password + "|", configured);
    }

    [Theory]
    [InlineData("nats://127.0.0.1:4222/", true)]
    [InlineData("nats://127.0.0.1:4333/", false)]
    [InlineData("nats://169.254.77.20/", false)]
    public void Nats_logs_in_with_the_configured_password_only_at_the_configured_server(string address, bool sent)
    {
        var options = WithVariable("IPCBENCH_NATS_URL", $"nats://ipcbench:{Password}@127.0.0.1:4222",
            () => Transports.Nats.NatsBroker.Options(new Uri(address), TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1), "test"));
        Assert.Equal(sent ? Password : null, options.AuthOpts.Password);
    }

    [Theory]
    [InlineData("amqp://127.0.0.1:5672/", "ipcbench")]
    [InlineData("amqp://localhost/", "ipcbench")]
    [InlineData("amqp://169.254.77.20:5672/", "guest")]
    public void Amqp_logs_in_with_the_configured_user_only_at_the_configured_broker(string address, string user)
    {
        var factory = WithVariable("IPCBENCH_RABBITMQ_URI", $"amqp://ipcbench:{Password}@127.0.0.1:5672/",
            () => Transports.RabbitMQ.Broker.Factory(new Uri(address), TimeSpan.FromSeconds(1), "test"));
        Assert.Equal(user, factory.UserName);
        Assert.Equal(user == "guest" ? "guest" : Password, factory.Password);
    }

    [Fact]
    public void An_addresss_own_credentials_go_with_it_wherever_it_points() =>
        Assert.Equal("u:p", BrokerLogin.UserInfo(new Uri("nats://u:p@169.254.1.2:4222"), new Uri("nats://x:y@127.0.0.1:4222"), 4222));

    private static T WithVariable<T>(string name, string value, Func<T> run)
    {
        string? before = Environment.GetEnvironmentVariable(name);
        Environment.SetEnvironmentVariable(name, value);
        try
        {
            return run();
        }
        finally
        {
            Environment.SetEnvironmentVariable(name, before);
        }
    }
}
