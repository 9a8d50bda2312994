import Foundation
import Stratus
import StratusBackend
import StratusPostgreSQL
import StratusSQLite
import StratusServer
import StratusTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the notification tests add to a ``WebServicesFixture``: subscriptions made through the
/// engine on the server's own store (the Web Services `subscriptions/modify` is not this
/// branch's), courier tokens, polls and event streams.
extension WebServicesFixture {
    /// The zone the tests write in, in the users' private databases.
    static let notesZone = CKRecordZone(zoneName: "Notes")

    /// Opens the server's store (its PostgreSQL, or its SQLite file) in this process and runs
    /// `body` with it.
    func withStore<T>(_ body: (Engine) throws -> T) throws -> T {
        if backendArguments.count == 2 {
            let backend = try BackendRegistry([PostgreSQLBackendProvider()]).makeBackend(for: backendArguments[1])
            defer { try? backend.close() }
            return try body(try Engine(backend: backend))
        }
        let found = FileManager.default.enumerator(at: directory.url, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.first { $0.pathExtension == "sqlite" }
        let file = try #require(found, "the server's store")
        let backend = try SQLiteBackend(configuration: .init(location: .file(path: file.path)))
        defer { try? backend.close() }
        return try body(try Engine(backend: backend))
    }

    /// The user record name of `session`'s user.
    func userRecordName(_ session: String) throws -> String {
        try withStore { engine in try #require(try AuthStore(engine: engine).session(presented: session)).userRecordName
        }
    }

    /// Saves `subscriptions` in the private database of `session`'s user, with the zone
    /// ``notesZone`` made first.
    func subscribe(_ session: String, _ subscriptions: [CKSubscription]) throws {
        let user = try userRecordName(session)
        try withStore { engine in
            let database = try engine.database(
                namespace: Namespace(container: Self.container, environment: .development, owner: user),
                scope: .private)
            for result in try database.modifyZones(saving: [Self.notesZone], deleting: []).saved {
                _ = try result.1.get()
            }
            for result in try database.modifySubscriptions(saving: subscriptions, deleting: []).saved {
                _ = try result.1.get()
            }
        }
    }

    /// Saves `subscriptions` as public-database subscriptions of `session`'s user (stored in
    /// the user's namespace, decision 0012.10).
    func subscribePublic(_ session: String, _ subscriptions: [CKSubscription]) throws {
        let user = try userRecordName(session)
        try withStore { engine in
            let database = try engine.database(
                namespace: Namespace(container: Self.container, environment: .development, owner: user),
                scope: .public)
            for result in try database.modifySubscriptions(saving: subscriptions, deleting: []).saved {
                _ = try result.1.get()
            }
        }
    }

    /// `tokens/create` for `credentials`: the answer.
    func createCourier(as credentials: Credentials, environment: String = "development") async throws -> Answer {
        try await send(
            "POST", "database/1/\(Self.container)/\(environment)/tokens/create",
            body: try JSONSerialization.data(withJSONObject: ["apnsEnvironment": "development"]), as: credentials)
    }

    /// The courier URL path (below the server's URL) of a new token for `credentials`.
    func courierPath(as credentials: Credentials) async throws -> String {
        let answer = try await createCourier(as: credentials)
        #expect(answer.status == 200, "\(answer.json)")
        let url = try #require(answer.json["webcourierURL"] as? String)
        let path = try #require(URL(string: url)?.path)
        return String(path.dropFirst())
    }

    /// A long-poll of `path` with `query`.
    func poll(_ path: String, _ query: String = "timeout=0") async throws -> Answer {
        try await send("GET", path, body: nil, as: .raw(query))
    }

    /// Saves notes `names` with `priority` in `zone` of `credentials`' `database`.
    func saveNotes(
        _ names: [String], priority: Int, as credentials: Credentials = .alice, database: String = "private",
        zone: String = "Notes"
    ) async throws {
        let operations = names.map { name -> [String: Any] in
            [
                "operationType": "forceReplace",
                "record": [
                    "recordName": name, "recordType": "Note",
                    "fields": ["title": ["value": name], "priority": ["value": priority]],
                ],
            ]
        }
        let answer = try await post(
            "records/modify", ["operations": operations, "zoneID": ["zoneName": zone]], database: database,
            as: credentials)
        #expect(answer.status == 200 && answer.records.allSatisfy { $0["serverErrorCode"] == nil }, "\(answer.json)")
    }

    /// Everything the server logged so far.
    var serverLog: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) ?? []
        return files.filter { $0.hasPrefix("stdout-") || $0.hasPrefix("stderr-") }.compactMap {
            try? String(contentsOf: directory.appending($0), encoding: .utf8)
        }.joined()
    }

    /// The body `curl` reads from the event stream at `path` in `seconds` (with the status line
    /// and headers first when `headers`).
    func readEvents(_ path: String, lastEventID: Int? = nil, seconds: Int = 2, headers: Bool = false) throws
        -> String
    {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["-sN", "--max-time", "\(seconds)", server.baseURL.absoluteString + "/" + path]
        if headers { arguments.append("-i") }
        if let lastEventID { arguments += ["-H", "Last-Event-ID: \(lastEventID)"] }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        _ = process.waitForExit(within: 60)
        return String(decoding: data, as: UTF8.self)
    }
}

extension WebServicesFixture.Answer {
    /// A poll's notifications.
    var notifications: [[String: Any]] { json["notifications"] as? [[String: Any]] ?? [] }
    /// Their positions.
    var positions: [Int] { notifications.compactMap { $0["position"] as? Int } }
}
