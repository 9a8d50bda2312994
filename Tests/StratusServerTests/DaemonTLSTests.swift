import Foundation
import StratusTestSupport
import Testing

/// `stratusd` serving HTTPS from a configured PEM certificate and key.
@Suite("stratusd: TLS")
struct DaemonTLSTests {
    /// A self-signed certificate for localhost and 127.0.0.1, valid for a day, and its key.
    struct SelfSigned {
        let directory: TemporaryDirectory
        var certificate: String { directory.appending("cert.pem").path }
        var key: String { directory.appending("key.pem").path }

        init() throws {
            directory = try TemporaryDirectory(prefix: "tls")
            let made = try CommandRun(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-subj", "/CN=localhost", "-days", "1", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", directory.appending("key.pem").path, "-out", directory.appending("cert.pem").path,
                ])
            guard made.status == 0 else { throw DaemonTestFailure("openssl failed: \(made.standardError)") }
        }

        /// The settings that serve this certificate, as environment variables.
        var environment: [String: String] {
            ["STRATUS_SERVER_TLS_CERTIFICATE": certificate, "STRATUS_SERVER_TLS_KEY": key]
        }
    }

    @Test func servesHealthOverHTTPSAndRefusesPlainHTTP() throws {
        let tls = try SelfSigned()
        defer { try? tls.directory.remove() }
        let server = try StratusDaemonProcess(arguments: ["--backend", "memory:"], environment: tls.environment)
        defer { server.stop() }
        #expect(server.baseURL.scheme == "https", "the listening line says https://: \(server.standardOutput)")
        let health = server.baseURL.appendingPathComponent("health").absoluteString

        let trusted = try CommandRun.curl(["--cacert", tls.certificate, health])
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(trusted.standardOutput.contains(#""status""#) && trusted.standardOutput.contains(#""ok""#))

        let untrusted = try CommandRun.curl([health])
        #expect(untrusted.status == 60, "a client that does not trust the certificate fails to verify it")

        let plain = try CommandRun.curl([
            "--write-out", "%{http_code}", health.replacingOccurrences(of: "https:", with: "http:"),
        ])
        #expect(plain.status != 0, "plain HTTP to the TLS port gets no answer: \(plain.standardOutput)")
        #expect(!plain.standardOutput.contains("ok"))
        #expect(server.stop() == 0)
    }

    /// A TLS client that stops mid-body, closing its TCP connection without `close_notify` or
    /// after a damaged TLS record, is the client's failure: nothing is logged as a failure of the
    /// server (it was a 500 and an `internal failure` line), and the server answers on.
    @Test func aTLSClientCutMidBodyIsNotAServerFailure() async throws {
        let tls = try SelfSigned()
        defer { try? tls.directory.remove() }
        let ws = try WebServicesFixture(environment: tls.environment)
        let path =
            "/database/1/\(WebServicesFixture.container)/development/private/records/modify"
            + "?ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(ws.aliceSession)"
        for ending in ["close", "damagedRecord"] {
            let cut = try CommandRun(
                URL(fileURLWithPath: "/usr/bin/python3"),
                ["-c", Self.cutClient, "\(try #require(ws.server.baseURL.port))", path, ending])
            #expect(cut.status == 0, "\(ending): \(cut.standardError)")
        }
        let health = try CommandRun.curl(["--cacert", tls.certificate, ws.server.baseURL.absoluteString + "/health"])
        #expect(health.status == 0 && health.standardOutput.contains("ok"), "\(health.standardError)")
        #expect(!ws.server.standardError.contains("internal failure"), "\(ws.server.standardError.suffix(2_000))")
    }

    /// A TLS client (Python's `ssl` over memory buffers, so that the socket can be closed
    /// without TLS's own close) that sends a request head and 10 of the 1,000 bytes its
    /// `Content-Length` promises, then ends by `argv[3]`: `close` (TCP only) or `damagedRecord`.
    static let cutClient = """
        import socket, ssl, sys, time
        port, path, ending = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection(("127.0.0.1", port))
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        tls = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                raw.sendall(outgoing.read())
                incoming.write(raw.recv(65536))
        raw.sendall(outgoing.read())
        head = f"POST {path} HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Length: 1000\\r\\n\\r\\n"
        tls.write(head.encode() + b'{"zoneID"')
        raw.sendall(outgoing.read())
        time.sleep(0.3)
        if ending == "damagedRecord":
            raw.sendall(b"\\x17\\x03\\x03\\x00\\x10" + b"\\x00" * 16)
            time.sleep(0.3)
        raw.close()
        time.sleep(0.3)
        """

    @Test func anUnreadableCertificateStopsTheStartNamingTheKey() throws {
        let tls = try SelfSigned()
        defer { try? tls.directory.remove() }
        var environment = tls.environment
        environment["STRATUS_SERVER_TLS_CERTIFICATE"] = tls.directory.appending("missing.pem").path
        let run = try CommandRun.stratusd([], environment: environment)
        #expect(run.status != nil && run.status != 0, "stratusd exits non-zero")
        #expect(run.standardError.contains("serverTlsCertificate"), "\(run.standardError)")
        #expect(run.standardError.contains("environment variable STRATUS_SERVER_TLS_CERTIFICATE"))
        #expect(run.standardError.contains("no such file"))
        #expect(!run.standardOutput.contains("listening"))
    }

    @Test func aBadOrMismatchedKeyOrACertificateWithoutKeyIsRefused() throws {
        let tls = try SelfSigned()
        defer { try? tls.directory.remove() }
        let garbage = tls.directory.appending("garbage.pem")
        try Data("not a key\n".utf8).write(to: garbage)
        let badKey = try CommandRun.stratusd(
            [],
            environment: ["STRATUS_SERVER_TLS_CERTIFICATE": tls.certificate, "STRATUS_SERVER_TLS_KEY": garbage.path])
        #expect(badKey.status != nil && badKey.status != 0)
        #expect(badKey.standardError.contains("serverTlsKey"), "\(badKey.standardError)")
        #expect(badKey.standardError.contains("not a PEM private key"))

        let other = try SelfSigned()
        defer { try? other.directory.remove() }
        let mismatched = try CommandRun.stratusd(
            [], environment: ["STRATUS_SERVER_TLS_CERTIFICATE": tls.certificate, "STRATUS_SERVER_TLS_KEY": other.key])
        #expect(mismatched.status != nil && mismatched.status != 0)
        #expect(mismatched.standardError.contains("does not match the certificate"), "\(mismatched.standardError)")

        let noKey = try CommandRun.stratusd([], environment: ["STRATUS_SERVER_TLS_CERTIFICATE": tls.certificate])
        #expect(noKey.status != nil && noKey.status != 0)
        #expect(noKey.standardError.contains("serverTlsKey is not set"), "\(noKey.standardError)")
    }
}

/// A test's own set-up failed.
struct DaemonTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
