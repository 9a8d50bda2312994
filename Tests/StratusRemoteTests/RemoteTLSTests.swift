import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// A remote container on a `stratusd` that serves HTTPS with a self-signed certificate.
@Suite("Remote containers: TLS")
struct RemoteTLSTests {
    static let container = "iCloud.com.example.tls"

    @Test func aTrustedSelfSignedServerWorksAndAnUntrustedOneIsRefused() async throws {
        let directory = try TemporaryDirectory(prefix: "remote-tls")
        defer { try? directory.remove() }
        let certificate = directory.appending("cert.pem").path
        try makeSelfSignedCertificate(certificate: certificate, key: directory.appending("key.pem").path)
        let made = try provisionStratusd(container: Self.container, users: ["alice"], in: directory)
        let server = try StratusDaemonProcess(
            environment: [
                "STRATUS_SERVER_TLS_CERTIFICATE": certificate,
                "STRATUS_SERVER_TLS_KEY": directory.appending("key.pem").path,
            ], directory: directory)
        defer { server.stop() }
        #expect(server.baseURL.scheme == "https")
        let credentials = RemoteCredentials.session(apiToken: made.apiToken, webAuthToken: made.sessions[0])

        let trusting = CKContainer(
            identifier: Self.container,
            server: RemoteServer(url: server.baseURL, credentials: credentials, trustedCertificatesFile: certificate))
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "over-tls"))
        record["title"] = "encrypted on the wire"
        _ = try await trusting.privateCloudDatabase.save(record)
        let fetched = try await trusting.privateCloudDatabase.record(for: record.recordID)
        #expect(fetched["title"] as? String == "encrypted on the wire")

        let untrusting = CKContainer(
            identifier: Self.container,
            server: RemoteServer(url: server.baseURL, credentials: credentials, connectTimeout: .seconds(2)))
        let error = try #require(
            await #expect(throws: CKError.self) {
                try await untrusting.privateCloudDatabase.record(for: record.recordID)
            })
        #expect(error.code == .networkUnavailable, "\(error)")
        #expect(error.localizedDescription.contains("trustedCertificatesFile"))
    }

    /// A certificate for localhost and 127.0.0.1, valid for a day, made by openssl.
    private func makeSelfSignedCertificate(certificate: String, key: String) throws {
        let openssl = ChildProcess()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
            "/CN=localhost", "-days", "1", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key,
            "-out", certificate,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        try #require(openssl.waitForExit(within: 120), "openssl ended")
        try #require(openssl.terminationStatus == 0, "openssl made the certificate")
    }
}
