import Foundation
import Stratus
import StratusBackend
import StratusPostgreSQL
import StratusTestSupport
import Testing

/// PostgreSQL's own edge cases: key order, round trips, error mapping, credentials.
@Suite("PostgreSQL backend")
struct PostgreSQLBackendTests {
    /// `bytea` compares like the SPI (memcmp, then shorter first), on the server's index.
    @Test func byteaOrderIsTheSPIOrder() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let backend = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        defer { try? backend.close() }
        var generator = SeededGenerator(seed: 42)
        var keys = Set<[UInt8]>([[], [0], [0, 0], [0xFF], [0xFF, 0], [0x7F], [0x80], [1, 0xFF], [1]])
        while keys.count < 600 {
            let alphabet: [UInt8] = [0, 1, 0x7F, 0x80, 0xFE, 0xFF]
            keys.insert(
                (0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        try backend.write { transaction in for key in keys { try transaction.set(key, key) } }
        let everything = KeyRange(from: [], to: [UInt8](repeating: 0xFF, count: 8))
        let forward = try backend.read { try $0.scan(everything, limit: 10_000) }.map(\.key)
        let reverse = try backend.read { try $0.scan(everything, limit: 10_000, reverse: true) }.map(\.key)
        let expected = keys.sorted(by: KeyRange.less)
        #expect(forward == expected)
        #expect(reverse == expected.reversed())
    }

    /// A 400-record modify costs a handful of round trips: the engine's batched reads, and one
    /// for every write and the commit.
    @Test func roundTripsPerModify() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let backend = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        defer { try? backend.close() }
        let database = CKContainer(identifier: "iCloud.stratus.pg-round-trips", backend: backend).privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "RT", ownerName: CKCurrentUserDefaultName)
        let records = (0..<400).map { index in
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r\(index)", zoneID: zoneID))
            record["title"] = "record \(index)"
            record["value"] = Int64(index)
            return record
        }
        let one = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "one", zoneID: zoneID))
        let counts = await TestThread { () -> (zone: Int, create: Int, update: Int, single: Int, failures: [String]) in
            var failures: [String] = []
            var before = backend.roundTrips
            func measure() -> Int {
                let now = backend.roundTrips
                defer { before = now }
                return now - before
            }
            do { try TestClients.createZones([zoneID], in: database) } catch { failures.append("\(error)") }
            let zone = measure()
            let created = TestClients.modify(database, saving: records, deleting: [])
            failures += created.errors.map { "\($0)" }
            let create = measure()
            let updated = records.compactMap { record -> CKRecord? in
                guard case .success(let saved)? = created.saved[record.recordID] else { return nil }
                saved["value"] = Int64(-1)
                return saved
            }
            let update = TestClients.modify(database, saving: updated, deleting: [])
            failures += update.errors.map { "\($0)" }
            let updateCount = measure()
            failures += TestClients.modify(database, saving: [one], deleting: []).errors.map { "\($0)" }
            return (zone, create, updateCount, measure(), failures)
        }.value()
        #expect(counts.failures.isEmpty, "\(counts.failures.prefix(3))")
        print(
            "PostgreSQL round trips: zone create \(counts.zone), 400-record create \(counts.create), 400-record update \(counts.update), one-record create \(counts.single)"
        )
        // The engine reads every record pointer a modify touches with one `getMany` (one
        // query), then the entries of the live ones with a second (decision 0008), and every
        // write of the modify travels with the commit: a handful of round trips however many
        // records (measured: 6 to create 400, the first of their type in a new zone; 3 to
        // update them).
        #expect(counts.create <= 10)
        // Its first reads — the meta row, the zone's row, the record type's schema, and the
        // pointers when the zone's number is known (`ZoneNumberHints`) — go together
        // (`PreloadedRows`): an update is that read, the entries and the commit.
        #expect(counts.update <= 3)
        // A one-record create of a known type in a known zone: that read and the commit.
        #expect(counts.single <= 2)
    }

    @Test(arguments: [
        ("40001", BackendError.Code.conflict), ("40P01", .conflict), ("57P01", .unavailable), ("08006", .unavailable),
        ("53100", .storageFull), ("55P03", .busy), ("25006", .readOnly), ("XX001", .corrupted),
        ("54000", .invalidArgument),
        ("42P01", .internal),
    ])
    func sqlStateMapping(_ state: String, _ code: BackendError.Code) {
        #expect(PostgreSQLErrorMapping.code(for: state) == code)
    }

    /// A server that cannot be reached gives `unavailable`, and the password appears in no
    /// message.
    @Test func unreachableServerIsUnavailableWithoutThePassword() throws {
        let secret = "s3cr3t-Pa55word"
        let configuration = PostgreSQLBackend.Configuration(
            host: "127.0.0.1", port: 1, user: "nobody", password: secret, database: "nothing",
            connectTimeout: .seconds(2))
        #expect(!"\(configuration)".contains(secret))
        do {
            _ = try PostgreSQLBackend(configuration: configuration)
            Issue.record("connected to port 1")
        } catch let error as BackendError {
            #expect(error.code == .unavailable)
            #expect(!"\(error)".contains(secret))
        }
        let url = try BackendURL("postgresql://nobody:\(secret)@127.0.0.1:1/nothing?connectTimeout=2s")
        do {
            _ = try BackendRegistry([PostgreSQLBackendProvider()]).makeBackend(for: url)
            Issue.record("connected to port 1")
        } catch {
            #expect(!"\(error)".contains(secret))
        }
    }

    /// A store of a newer format is refused; the current one opens again without migrating.
    @Test func schemaVersionIsChecked() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let configuration = try PostgreSQLTestServer.configuration(storage)
        try PostgreSQLBackend(configuration: configuration).close()
        try PostgreSQLBackend(configuration: configuration).close()
        let admin = try PostgreSQLConnection(parameters: configuration.connectionParameters, redact: [])
        defer { admin.close() }
        try admin.run([
            PostgreSQLStatement("UPDATE \"\(configuration.schema)\".stratus_schema_version SET version = 99")
        ])
        #expect(throws: BackendError.self) { try PostgreSQLBackend(configuration: configuration) }
    }
}
