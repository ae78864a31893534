using System.Net;
using System.Net.Http.Headers;

namespace IpcBench.Conformance;

/// <summary>The grpc server speaks gRPC as the spec writes it: a call built byte by byte here, sharing no code with IpcBench's client, is answered.</summary>
public class GrpcTests
{
    [Fact]
    public async Task A_call_built_from_the_grpc_spec_gets_its_payload_back()
    {
        await using var server = await TestServer.StartAsync("grpc");
        using var client = new HttpClient();
        // Length-prefixed message (flag 0, length 7), then EchoMessage { bytes payload = 1 } = 0A 05 "hello".
        byte[] body = [0, 0, 0, 0, 7, 0x0A, 5, .. "hello"u8];
        using var request = new HttpRequestMessage(HttpMethod.Post, $"http://{server.Process.Address.Authority}/ipcbench.Echo/Call")
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(body),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
        request.Headers.TryAddWithoutValidation("te", "trailers");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));

        using var response = await client.SendAsync(request, timeout.Token);
        byte[] reply = await response.Content.ReadAsByteArrayAsync(timeout.Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/grpc", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal(body, reply);
        Assert.Equal("0", response.TrailingHeaders.GetValues("grpc-status").Single());
    }

    [Fact]
    public async Task A_malformed_message_is_a_grpc_error_for_that_call_only()
    {
        await using var server = await TestServer.StartAsync("grpc");
        using var client = new HttpClient();
        byte[] body = [0, 0, 0, 0, 3, 0x0A, 9, 1]; // the field claims 9 bytes, 1 follows
        using var request = new HttpRequestMessage(HttpMethod.Post, $"http://{server.Process.Address.Authority}/ipcbench.Echo/Call")
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(body),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));

        using var response = await client.SendAsync(request, timeout.Token);
        await response.Content.ReadAsByteArrayAsync(timeout.Token);

        Assert.Equal("3", response.TrailingHeaders.GetValues("grpc-status").Single()); // INVALID_ARGUMENT
        await using var connection = await server.ConnectAsync();
        Assert.True(await new Core.Measurement.ClosedLoop.Exchange(connection, 10).SendAsync(false, default) >= 0);
    }
}
