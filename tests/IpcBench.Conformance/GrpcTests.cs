using System.Buffers.Binary;
using System.Net;
using System.Net.Http.Headers;
using Google.Protobuf;
using Ipcbench;
using IpcBench.Contract;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// Interop with the grpc-dotnet server: calls built here as gRPC's spec writes them, byte by byte or
/// with protoc's classes for Protos/echo.proto and the protobuf runtime, on a bare HttpClient and
/// sharing no code with IpcBench's client, are answered.
/// </summary>
public class GrpcTests
{
    [Theory]
    [InlineData("grpc")]
    [InlineData("grpc-codefirst")] // the contract interface is echo.proto's service on the wire
    public async Task A_call_built_from_the_grpc_spec_gets_its_payload_back(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        // Length-prefixed message (flag 0, length 7), then EchoMessage { bytes payload = 1 } = 0A 05 "hello".
        byte[] body = [0, 0, 0, 0, 7, 0x0A, 5, .. "hello"u8];

        using var response = await CallAsync(server, body);
        byte[] reply = await response.Content.ReadAsByteArrayAsync(TestContext.Current.CancellationToken);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/grpc", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal(body, reply);
        Assert.Equal("0", response.TrailingHeaders.GetValues("grpc-status").Single());
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(127)]
    [InlineData(128)]
    [InlineData(102400)]
    public async Task A_message_from_protocs_generated_class_comes_back_equal(int size)
    {
        await using var server = await TestServer.StartAsync("grpc");
        var request = new EchoMessage { Payload = ByteString.CopyFrom(Enumerable.Range(0, size).Select(i => (byte)(i * 31)).ToArray()) };
        byte[] body = new byte[5 + request.CalculateSize()];
        BinaryPrimitives.WriteUInt32BigEndian(body.AsSpan(1), (uint)request.CalculateSize()); // flag 0: not compressed
        request.WriteTo(body.AsSpan(5));

        using var response = await CallAsync(server, body);
        byte[] reply = await response.Content.ReadAsByteArrayAsync(TestContext.Current.CancellationToken);

        Assert.Equal("0", response.TrailingHeaders.GetValues("grpc-status").Single());
        Assert.Equal(reply.Length - 5, (int)BinaryPrimitives.ReadUInt32BigEndian(reply.AsSpan(1)));
        Assert.Equal(request, EchoMessage.Parser.ParseFrom(reply.AsSpan(5)));
    }

    [Theory]
    [InlineData("grpc", "grpc-codefirst")]
    [InlineData("grpc-codefirst", "grpc")]
    public async Task The_generated_client_and_the_code_first_client_call_each_others_server(string server, string client)
    {
        await using var running = await TestServer.StartAsync(server);
        var address = new UriBuilder(running.ClientAddress()) { Scheme = client }.Uri;
        await using var connection = await TransportRegistry.Get(client).ConnectAsync(address, TestContext.Current.CancellationToken);
        byte[] reply = new byte[5];

        Assert.Equal(5, await connection.RequestAsync("hello"u8.ToArray(), reply, TestContext.Current.CancellationToken));
        Assert.Equal("hello"u8.ToArray(), reply);
    }

    [Fact]
    public async Task A_stream_built_from_the_grpc_spec_gets_one_reply_per_message_in_order()
    {
        await using var server = await TestServer.StartAsync("grpc-stream");
        // Two length-prefixed EchoMessages on one Echo/Stream call, then the end of the request stream.
        byte[] first = [0, 0, 0, 0, 5, 0x0A, 3, .. "one"u8];
        byte[] second = [0, 0, 0, 0, 5, 0x0A, 3, .. "two"u8];

        using var response = await CallAsync(server, [.. first, .. second], "Stream");
        byte[] reply = await response.Content.ReadAsByteArrayAsync(TestContext.Current.CancellationToken);

        Assert.Equal("0", response.TrailingHeaders.GetValues("grpc-status").Single());
        Assert.Equal([.. first, .. second], reply);
    }

    [Fact]
    public async Task A_malformed_message_is_a_grpc_error_for_that_call_only()
    {
        await using var server = await TestServer.StartAsync("grpc");
        byte[] body = [0, 0, 0, 0, 3, 0x0A, 9, 1]; // the field claims 9 bytes, 1 follows

        using var response = await CallAsync(server, body);
        await response.Content.ReadAsByteArrayAsync(TestContext.Current.CancellationToken);

        Assert.NotEqual("0", Status(response));
        await using var connection = await server.ConnectAsync();
        Assert.True(await new Harness.Measurement.Exchange(connection, 10).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    /// <summary>The call's grpc-status: in the trailers, or in the headers of a trailers-only reply.</summary>
    private static string Status(HttpResponseMessage response) =>
        (response.TrailingHeaders.TryGetValues("grpc-status", out var trailer) ? trailer : response.Headers.GetValues("grpc-status")).Single();

    /// <summary>POSTs framed requests to ipcbench.Echo/METHOD over h2c, as any gRPC client would; the response is read whole.</summary>
    private static async Task<HttpResponseMessage> CallAsync(TestServer server, byte[] body, string method = "Call")
    {
        using var client = new HttpClient();
        using var request = new HttpRequestMessage(HttpMethod.Post, $"http://{server.Process.Address.Authority}/ipcbench.Echo/{method}")
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(body),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
        request.Headers.TryAddWithoutValidation("te", "trailers");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        var response = await client.SendAsync(request, HttpCompletionOption.ResponseContentRead, timeout.Token);
        return response;
    }
}
