import Crypto
import Foundation
import StratusTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests signed with a server-to-server key, as an app's own backend sends them.
extension WebServicesFixture {
    /// A P-256 key registered with `stratusd admin key add` for the development environment.
    struct ServerKey: Sendable {
        let privateKey: P256.Signing.PrivateKey
        let keyID: String
    }

    /// Makes a key pair, registers its public half, and returns it.
    func addServerKey() throws -> ServerKey {
        let key = P256.Signing.PrivateKey()
        let pem = directory.appending("key-\(UUID()).pem")
        try Data(key.publicKey.pemRepresentation.utf8).write(to: pem)
        let run = try runAdmin(
            [
                "key", "add", "--container", Self.container, "--environment", "development", "--pem", pem.path,
            ] + backendArguments, in: directory)
        guard run.status == 0 else { throw StratusDaemonProcess.StartFailure(description: run.errors) }
        return ServerKey(privateKey: key, keyID: run.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `POST path` with `body`, signed over `date:base64(SHA-256(body)):path` by `key` at `date`.
    func signedPost(_ path: String, body: Data, key: ServerKey, date: Date = Date()) async throws -> Answer {
        let dateText = date.formatted(.iso8601)
        let message = "\(dateText):\(Data(SHA256.hash(data: body)).base64EncodedString()):\(path)"
        let signature = try key.privateKey.signature(for: Data(message.utf8)).derRepresentation.base64EncodedString()
        var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue(key.keyID, forHTTPHeaderField: "X-Apple-CloudKit-Request-KeyID")
        request.setValue(dateText, forHTTPHeaderField: "X-Apple-CloudKit-Request-ISO8601Date")
        request.setValue(signature, forHTTPHeaderField: "X-Apple-CloudKit-Request-SignatureV1")
        let (data, response) = try await URLSession.shared.data(for: request)
        return Answer(
            status: (response as? HTTPURLResponse)?.statusCode ?? -1,
            json: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }
}
