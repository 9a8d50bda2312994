import Foundation
import Stratus
import StratusRemote

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An in-process `stratusd` over a new SQLite store, speaking the binary record encoding
/// (decision 0018) or not, and one user's remote container of it: the setting of the record
/// encoding tests. Raw requests go through `post(_:_:contentType:accept:)`.
struct RecordEncodingFixture {
    static let identifier = "iCloud.com.example.encoding"
    let storage: RemoteConformanceStorage

    /// A server with the encoding on or off.
    static func start(recordEncoding: Bool) async throws -> RecordEncodingFixture {
        let base = try await RemoteConformanceTests.fixture("sqlite:///tmp/record-encoding.sqlite").makeStorage()
        return RecordEncodingFixture(
            storage: try await RemoteConformanceStorage.start(serving: base, recordEncoding: recordEncoding))
    }

    /// The user's remote container (a new one each call).
    func container() throws -> CKContainer { try storage.container(identifier: Self.identifier) }

    func stop() async {
        await storage.stop()
        try? storage.destroy()
    }

    /// A raw `POST` of `body` to `operation` of the private database: the status, the
    /// response's headers and its body.
    func post(_ operation: String, _ body: [UInt8], contentType: String, accept: String? = nil) async throws -> (
        status: Int, headers: [String: String], body: [UInt8]
    ) {
        guard case .session(let apiToken, let webAuthToken) = try storage.credentials(for: Self.identifier) else {
            throw CKError(.internalError)
        }
        var components = URLComponents(
            url: storage.url.appendingPathComponent(
                "database/1/\(Self.identifier)/development/private/\(operation)"),
            resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "ckAPIToken", value: apiToken),
            URLQueryItem(name: "ckWebAuthToken", value: webAuthToken),
        ]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return (http.statusCode, headers, Array(data))
    }
}
