using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using IpcBench.Contract;
using IpcBench.Contract.Options;

namespace IpcBench.Kit.Security;

/// <summary>
/// TLS for the secure variants (tcp-tls, grpc-tls), one way for all: TLS 1.3 only; each server makes a self-signed
/// certificate when it starts, keeps its private key in memory (never on disk) and names the certificate in the address
/// it reports, as <c>pin=</c> and the certificate's SHA-256; the client trusts that certificate and no other. Nothing
/// is added to a certificate store, so nothing is left behind.
/// </summary>
public static class Tls
{
    public const SslProtocols Protocols = SslProtocols.Tls13;

    /// <summary>The server's certificate, by its SHA-256: written by the server into the address it reports.</summary>
    public static readonly TransportOption Pin = TransportOption.Text("pin",
        "the SHA-256 of the server's certificate, which the server reports in its address; the client trusts that certificate only",
        OptionScope.Address);

    /// <summary>
    /// A self-signed certificate (ECDSA P-256) valid for a day, its key in memory. On Windows it goes through PKCS#12 once
    /// more, because SChannel will not use an ephemeral key; the key it then stores goes when the certificate is disposed.
    /// </summary>
    public static X509Certificate2 CreateCertificate()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=ipcbench", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, false));
        var now = DateTimeOffset.UtcNow;
        var certificate = request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(1));
        if (!OperatingSystem.IsWindows())
        {
            return certificate;
        }
        using (certificate)
        {
            return X509CertificateLoader.LoadPkcs12(certificate.Export(X509ContentType.Pkcs12), null);
        }
    }

    public static string PinOf(X509Certificate certificate) => Convert.ToHexStringLower(certificate.GetCertHash(HashAlgorithmName.SHA256));

    /// <summary>The address a client is given: <paramref name="bound"/> with the certificate's pin.</summary>
    public static Uri WithPin(Uri bound, X509Certificate certificate) => AddressQuery.With(bound, Pin.Name, PinOf(certificate));

    public static SslServerAuthenticationOptions ServerOptions(X509Certificate2 certificate) => new()
    {
        ServerCertificate = certificate,
        EnabledSslProtocols = Protocols,
        ClientCertificateRequired = false,
    };

    /// <summary>
    /// The client's side: TLS 1.3 with the pinned certificate. Name and chain are not checked, since the certificate is
    /// self-signed and made for this run: the pin is the trust, stricter than a name.
    /// </summary>
    public static SslClientAuthenticationOptions ClientOptions(string pin) => new()
    {
        TargetHost = "ipcbench",
        EnabledSslProtocols = Protocols,
        RemoteCertificateValidationCallback = (_, certificate, _, _) => certificate is not null && string.Equals(PinOf(certificate), pin, StringComparison.OrdinalIgnoreCase),
    };

    /// <summary>The pin <paramref name="address"/> carries; a clear error when it has none.</summary>
    public static string RequirePin(Uri address, ITransport transport) =>
        OptionValues.Parse(address, transport)[Pin] is { Length: > 0 } pin
            ? pin
            : throw new TransportException($"{AddressQuery.WithoutQuery(address)} has no pin=: {transport.Name} trusts only the certificate "
                + "its server names, in the address it reports (its READY line); add that address's pin= to --server");
}
