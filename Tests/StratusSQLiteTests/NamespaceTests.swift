import Foundation
import StratusBackend
import StratusConformance
import StratusLMDB
import StratusPostgreSQL
import StratusSchema
import StratusTestSupport
import Testing

@testable import Stratus

/// stratusd's namespaces (decision 0012.10) and the server's data prefix (decision 0013.2), on
/// every backend: namespaces are isolated from each other and from embedded
/// containers, and every engine over one store agrees on a namespace's number.
@Suite struct NamespaceTests {
    /// The backends the cases run on.
    enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case memory, sqlite, lmdb, postgresql

        var testDescription: String { rawValue }

        func makeStorage() async throws -> any FixtureStorage {
            switch self {
            case .memory: try await InMemoryFixture().makeStorage()
            case .sqlite: try await SQLiteFixture().makeStorage()
            case .lmdb:
                try await URLBackendFixture(
                    BackendURL("lmdb:///tmp/stratus-namespaces"), registry: BackendRegistry([LMDBBackendProvider()])
                ).makeStorage()
            case .postgresql:
                try await URLBackendFixture(
                    Self.postgresURL(), registry: BackendRegistry([PostgreSQLBackendProvider()])
                ).makeStorage()
            }
        }

        /// The server scripts/test.sh starts; without it the PostgreSQL runs fail, saying why.
        private static func postgresURL() throws -> BackendURL {
            guard let text = ProcessInfo.processInfo.environment["STRATUS_TEST_POSTGRES_URL"], !text.isEmpty else {
                throw BackendError(
                    .unavailable,
                    "STRATUS_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a private PostgreSQL server"
                )
            }
            return try BackendURL(text)
        }
    }

    static let base = Namespace(container: "iCloud.com.example.app", environment: .development)

    /// One namespace differing from ``base`` in each part.
    static let others: [Namespace] = [
        Namespace(container: "iCloud.com.example.other", environment: .development),
        Namespace(container: "iCloud.com.example.app", environment: .production),
        Namespace(container: "iCloud.com.example.app", environment: .development, owner: "_user1"),
    ]

    /// Runs `body` with fresh storage, destroyed afterwards.
    func withStorage(_ backend: Backend, _ body: (any FixtureStorage) async throws -> Void) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        try await body(storage)
    }

    func save(_ name: String, in database: DatabaseContext, zone: CKRecordZone.ID = .default) throws {
        if database.schemaScope.environment == .production {
            // Production refuses types its schema lacks (decision 0020): declare Note first.
            try database.importSchema(try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Note (title STRING);"))
        }
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["title"] = name
        let outcome = try database.modifyRecords(
            ModifyRequest(records: [record], deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
        #expect(outcome.saveResults.count == 1)
        if case .failure(let error) = outcome.saveResults[0].1 { throw error }
    }

    func exists(_ name: String, in database: DatabaseContext, zone: CKRecordZone.ID = .default) throws -> Bool {
        let results = try database.fetchRecords([CKRecord.ID(recordName: name, zoneID: zone)], desiredKeys: nil)
        switch results[0].1 {
        case .success: return true
        case .failure(let error) where error.code == .unknownItem || error.code == .zoneNotFound: return false
        case .failure(let error): throw error
        }
    }

    @Test(arguments: Backend.allCases)
    func aRecordSavedInOneNamespaceIsNotVisibleInAnother(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let engine = try Engine(backend: try storage.open())
            let base = try engine.database(namespace: Self.base, scope: .public)
            try save("shared-name", in: base)
            #expect(try exists("shared-name", in: base))
            var numbers: Set<Int64> = [base.containerNumber]
            for other in Self.others {
                let database = try engine.database(namespace: other, scope: .public)
                #expect(numbers.insert(database.containerNumber).inserted, "\(other) shares a number")
                #expect(try !exists("shared-name", in: database), "\(other) sees the base namespace's record")
                // Its own record of the same name is its own.
                try save("shared-name", in: database)
                #expect(try exists("shared-name", in: database))
            }
            let page = try base.query(
                CKQuery(recordType: "Note", predicate: NSPredicate(value: true)), zoneID: nil, cursor: nil, limit: 0,
                desiredKeys: nil)
            #expect(page.records.map(\.recordID.recordName) == ["shared-name"])
        }
    }

    @Test(arguments: Backend.allCases)
    func aChangeTokenFromOneNamespaceIsRefusedInAnother(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let engine = try Engine(backend: try storage.open())
            let zone = CKRecordZone(zoneName: "Notes")
            let first = Namespace(container: "iCloud.com.example.app", environment: .development, owner: "_user1")
            let others = [
                Namespace(container: "iCloud.com.example.app", environment: .development, owner: "_user2"),
                Namespace(container: "iCloud.com.example.app", environment: .production, owner: "_user1"),
            ]
            let source = try engine.database(namespace: first, scope: .private)
            _ = try source.modifyZones(saving: [zone], deleting: [])
            try save("a", in: source, zone: zone.zoneID)
            let databaseToken = try source.fetchDatabaseChanges(since: nil, limit: 100).token
            let zoneToken = try source.fetchZoneChanges(zone.zoneID, since: nil, limit: 100, desiredKeys: nil).token
            for other in others {
                let database = try engine.database(namespace: other, scope: .private)
                _ = try database.modifyZones(saving: [zone], deleting: [])
                #expect(try !exists("a", in: database, zone: zone.zoneID))
                #expect {
                    _ = try database.fetchDatabaseChanges(since: databaseToken, limit: 100)
                } throws: { ($0 as? CKError)?.code == .changeTokenExpired }
                #expect {
                    _ = try database.fetchZoneChanges(zone.zoneID, since: zoneToken, limit: 100, desiredKeys: nil)
                } throws: { ($0 as? CKError)?.code == .changeTokenExpired }
            }
            // The tokens still work where they came from.
            #expect(
                try source.fetchZoneChanges(zone.zoneID, since: zoneToken, limit: 100, desiredKeys: nil).changes.isEmpty
            )
        }
    }

    @Test(arguments: Backend.allCases)
    func twoEnginesOverOneStoreAgreeOnANamespacesNumber(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let first = try Engine(backend: try storage.open())
            let second = try Engine(backend: try storage.open())
            let a = try first.database(namespace: Self.base, scope: .public)
            try save("from-first", in: a)
            let b = try second.database(namespace: Self.base, scope: .public)
            #expect(a.containerNumber == b.containerNumber)
            #expect(try exists("from-first", in: b))
            // Opening it again (cached, and in a third engine) changes nothing.
            #expect(try first.database(namespace: Self.base, scope: .private).containerNumber == a.containerNumber)
            let third = try Engine(backend: try storage.open())
            #expect(try third.database(namespace: Self.base, scope: .public).containerNumber == a.containerNumber)
        }
    }

    @Test(arguments: Backend.allCases)
    func enginesRacingToCreateNamespacesGetTheSameNumbers(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let namespaces = (0..<12).map {
                Namespace(
                    container: "iCloud.race.\($0 % 3)", environment: $0 % 2 == 0 ? .development : .production,
                    owner: $0 < 6 ? "" : "_u\($0)")
            }
            let engines = try (0..<4).map { _ in try Engine(backend: try storage.open()) }
            let results = try await withThrowingTaskGroup(of: [Namespace: Int64].self) { group in
                for (index, engine) in engines.enumerated() {
                    // Each engine opens them in another order.
                    let order = index % 2 == 0 ? namespaces : namespaces.reversed()
                    group.addTask {
                        var numbers: [Namespace: Int64] = [:]
                        for namespace in order {
                            numbers[namespace] = try engine.database(namespace: namespace, scope: .public)
                                .containerNumber
                        }
                        return numbers
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == engines.count)
            for result in results.dropFirst() { #expect(result == results[0]) }
            #expect(Set(results[0].values).count == namespaces.count)
        }
    }

    /// Two processes racing to create the same namespaces on one SQLite file (in opposite
    /// orders) print the same numbers, all distinct, and this process agrees.
    @Test func twoProcessesRacingToCreateNamespacesGetTheSameNumbers() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let count = 16
        let probes = try ["forward", "reverse"].map {
            try TestProbe.launch(["namespace-numbers", storage.path, String(count), $0])
        }
        var outputs: [String] = []
        for probe in probes {
            let outcome = await probe.finish()
            #expect(outcome.status == 0, "probe failed with status \(outcome.status): \(outcome.errorOutput)")
            outputs.append(outcome.output)
        }
        #expect(outputs[0] == outputs[1])
        let lines = outputs[0].split(separator: "\n")
        #expect(lines.count == count)
        let numbers = lines.compactMap { $0.split(separator: "=").last.flatMap { Int64($0) } }
        #expect(Set(numbers).count == count)
        // An engine in this process reads the same numbers.
        let engine = try Engine(backend: try storage.open())
        let mine = try (0..<count).map { index in
            let namespace = Namespace(
                container: "iCloud.probe.\(index % 5)", environment: index % 2 == 0 ? .development : .production,
                owner: index % 4 < 2 ? "" : "_user\(index)")
            let number = try engine.database(namespace: namespace, scope: .public).containerNumber
            return "\(namespace.container)/\(namespace.environment.rawValue)/\(namespace.owner)=\(number)"
        }
        #expect(mine.sorted() == lines.map(String.init))
    }

    @Test(arguments: Backend.allCases)
    func anEmbeddedContainerNeverSharesANumberWithANamespace(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let identifier = "iCloud.com.example.app"
            let embedded = CKContainer(identifier: identifier, backend: try storage.open())
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "embedded"))
            _ = try await embedded.publicCloudDatabase.save(record)

            let engine = try Engine(backend: try storage.open())
            let container = try engine.database(container: identifier, scope: .public)
            #expect(try exists("embedded", in: container))
            var numbers: Set<Int64> = [container.containerNumber]
            // `base` names the embedded container's identifier; `others` include its production twin.
            for namespace in [Self.base] + Self.others {
                let database = try engine.database(namespace: namespace, scope: .public)
                #expect(numbers.insert(database.containerNumber).inserted, "\(namespace) shares a number")
                #expect(try !exists("embedded", in: database))
                try save("served", in: database)
            }
            // And the embedded container does not see the namespaces' records.
            let fetched = try await embedded.publicCloudDatabase.records(for: [CKRecord.ID(recordName: "served")])
            #expect(throws: CKError.self) { try fetched[CKRecord.ID(recordName: "served")]?.get() }
            // A container registered after the namespaces still gets a new number.
            let later = try engine.database(container: "iCloud.later", scope: .public)
            #expect(numbers.insert(later.containerNumber).inserted)
        }
    }

    @Test(arguments: Backend.allCases)
    func aNamespaceNeedsAContainerName(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let engine = try Engine(backend: try storage.open())
            #expect {
                _ = try engine.database(namespace: Namespace(container: "", environment: .production), scope: .public)
            } throws: { ($0 as? CKError)?.code == .invalidArguments }
        }
    }

    @Test(arguments: Backend.allCases)
    func serverDataRoundTripsInsideItsPrefix(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let engine = try Engine(backend: try storage.open())
            let data = engine.serverData
            try data.write { txn in
                try txn.set([0x06, 0x01, 0x41], [1, 2, 3])
                try txn.set([0x06, 0x02], [4])
                try txn.set([0x06, 0xFF, 0xFF], [5])
                #expect(try txn.get([0x06, 0x01, 0x41]) == [1, 2, 3])
            }
            // Another engine over the store reads it.
            let other = try Engine(backend: try storage.open()).serverData
            #expect(try other.read { try $0.get([0x06, 0x01, 0x41]) } == [1, 2, 3])
            let all = try other.read { try $0.scan(ServerData.range, limit: 10) }
            #expect(all.map(\.key) == [[0x06, 0x01, 0x41], [0x06, 0x02], [0x06, 0xFF, 0xFF]])
            #expect(all.map(\.value) == [[1, 2, 3], [4], [5]])
            try data.write { txn in
                try txn.clear([0x06, 0x02])
                try txn.clearRange(KeyRange(prefix: [0x06, 0x01]))
            }
            #expect(try data.read { try $0.scan(ServerData.range, limit: 10) }.map(\.key) == [[0x06, 0xFF, 0xFF]])
            // The engine's own data is untouched by all of it.
            let database = try engine.database(namespace: Self.base, scope: .public)
            try save("after", in: database)
            try data.write { try $0.clearRange(ServerData.range) }
            #expect(try exists("after", in: database))
            #expect(try data.read { try $0.scan(ServerData.range, limit: 10) }.isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func serverDataRefusesKeysOutsideItsPrefix(backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let backendHandle = try storage.open()
            let engine = try Engine(backend: backendHandle)
            _ = try engine.database(namespace: Self.base, scope: .public)
            let before = try backendHandle.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 1000) }
            let outside: [[UInt8]] = [
                [], [0x01], StoreLayout.storeMetaKey, StoreLayout.containerCounterKey,
                StoreLayout.namespaceKey(Self.base), [0x03, 0x06], [0x05], [0x07], [0x07, 0x06], [0xFF],
            ]
            func refused(_ body: () throws -> Void) -> Bool {
                do {
                    try body()
                    return false
                } catch {
                    return (error as? CKError)?.code == .invalidArguments
                }
            }
            for key in outside {
                #expect(refused { try engine.serverData.write { try $0.set(key, [9]) } }, "set \(key)")
                #expect(refused { try engine.serverData.write { try $0.clear(key) } }, "clear \(key)")
                #expect(refused { _ = try engine.serverData.write { try $0.get(key) } }, "get \(key)")
                #expect(refused { _ = try engine.serverData.read { try $0.get(key) } }, "read \(key)")
            }
            let badRanges = [
                KeyRange(from: [], to: [0xFF]), KeyRange(from: [0x05], to: [0x06, 0x01]),
                KeyRange(from: [0x06], to: [0x07, 0x00]), KeyRange(from: [0x06], to: [0x08]),
                KeyRange(prefix: [0x03]),
            ]
            for range in badRanges {
                #expect(refused { try engine.serverData.write { try $0.clearRange(range) } }, "clearRange \(range)")
                #expect(refused { _ = try engine.serverData.read { try $0.scan(range, limit: 10) } }, "scan \(range)")
            }
            // A refused key rolls back what the body wrote before it.
            #expect(
                refused {
                    try engine.serverData.write { txn in
                        try txn.set([0x06, 0x01], [1])
                        try txn.set([0x05, 0x01], [1])
                    }
                })
            let after = try backendHandle.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 1000) }
            #expect(after == before)
        }
    }
}
