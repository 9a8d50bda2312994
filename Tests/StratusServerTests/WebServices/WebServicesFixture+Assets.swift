import Crypto
import Foundation
import Stratus
import StratusSQLite
import StratusServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Asset uploads and downloads against the fixture's server (decision 0012.8).
extension WebServicesFixture {
    /// Upload URLs from `assets/upload`, one per field name, for record `recordName`.
    func uploadURLs(
        fields: [String], recordName: String = "p1", database: String = "private", as credentials: Credentials = .alice
    ) async throws -> [String] {
        let tokens = fields.map { ["recordName": recordName, "recordType": "Photo", "fieldName": $0] }
        let answer = try await post("assets/upload", ["tokens": tokens], database: database, as: credentials)
        let answered = try #require(answer.json["tokens"] as? [[String: Any]], "\(answer.json)")
        return try answered.map { try #require($0["url"] as? String) }
    }

    /// Uploads `bytes` for field `photo` and returns the `singleFile` dictionary.
    func upload(
        _ bytes: Data, database: String = "private", as credentials: Credentials = .alice
    ) async throws -> [String: Any] {
        let url = try #require(try await uploadURLs(fields: ["photo"], database: database, as: credentials).first)
        let answer = try await request("POST", url: url, body: bytes)
        return try #require(answer.json["singleFile"] as? [String: Any], "\(answer.status) \(answer.json)")
    }

    /// The server's HMAC key, read from its SQLite store.
    func hmacKey() throws -> SymmetricKey {
        let path = directory.appending(".stratus/stratus.sqlite").path
        let backend = try SQLiteBackend(configuration: .init(location: .file(path: path)))
        return try AuthStore(engine: try Engine(backend: backend)).hmacKey()
    }
}
