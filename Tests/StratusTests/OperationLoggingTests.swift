import Dispatch
import Foundation
import Stratus
import StratusBackend
import StratusInMemory
import StratusTestSupport
import Synchronization
import Testing

/// What the engine logs about operations (`Docs/Logging.md`), captured in memory through the
/// logger passed to `CKContainer(identifier:backend:logger:)`.
@Suite struct OperationLoggingTests {
    /// A field value no log line may contain.
    static let secret = "field-value-7f3c9e-never-logged"

    static func container(_ capture: LogCapture, backend: any DatabaseBackend = InMemoryBackend()) -> CKContainer {
        CKContainer(identifier: "iCloud.test.logging", backend: backend, logger: capture.logger)
    }

    static func notes(_ count: Int, in zoneID: CKRecordZone.ID) -> [CKRecord] {
        (0..<count).map { index in
            let record = CKRecord(
                recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(index)", zoneID: zoneID))
            record["body"] = "\(secret) \(index)"
            record["tags"] = [secret]
            return record
        }
    }

    @Test func anOperationLogsItsStartAndEndWithIDCountsAndDuration() async throws {
        let capture = LogCapture()
        let database = Self.container(capture).privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Logged", in: database)
        let operation = CKModifyRecordsOperation(recordsToSave: Self.notes(3, in: zoneID))
        await OpsTestKit.run(operation, on: database)

        let id = operation.operationID
        let started = try #require(
            capture.entries(message: "operation started").first { $0.value(LogKey.operationID) == id })
        #expect(started.level == .debug)
        #expect(started.value(LogKey.operationKind) == "CKModifyRecordsOperation")
        #expect(started.value(LogKey.database) == "private")
        #expect(started.value(LogKey.container) == "iCloud.test.logging")
        #expect(started.metadata[LogKey.zones] == .array([.string("Logged")]))
        #expect(started.value(LogKey.count) == "3")

        let finished = try #require(
            capture.entries(message: "operation finished").first { $0.value(LogKey.operationID) == id })
        #expect(finished.level == .debug)
        #expect(finished.value(LogKey.count) == "3")
        #expect(finished.value(LogKey.failedCount) == "0")
        #expect(finished.value(LogKey.error) == "none")
        let milliseconds = try #require(finished.value(LogKey.durationMilliseconds).flatMap(Double.init))
        #expect(milliseconds >= 0 && milliseconds < 60_000)
    }

    @Test func perItemFailuresAndRequestErrorsAreLoggedAtTheEnd() async throws {
        let capture = LogCapture()
        let container = Self.container(capture)
        let database = container.privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        try await OpsTestKit.save(Self.notes(1, in: zoneID), in: database)
        let fetch = CKFetchRecordsOperation(recordIDs: [
            CKRecord.ID(recordName: "note-0", zoneID: zoneID), CKRecord.ID(recordName: "absent", zoneID: zoneID),
        ])
        await OpsTestKit.run(fetch, on: database)
        let changes = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID])
        await OpsTestKit.run(changes, on: container.publicCloudDatabase)

        let fetched = try #require(
            capture.entries(message: "operation finished").first { $0.value(LogKey.operationID) == fetch.operationID })
        #expect(fetched.value(LogKey.count) == "2")
        #expect(fetched.value(LogKey.failedCount) == "1")
        #expect(fetched.value(LogKey.error) == "none")
        let failed = try #require(
            capture.entries(message: "operation finished").first { $0.value(LogKey.operationID) == changes.operationID }
        )
        #expect(failed.value(LogKey.database) == "public")
        #expect(failed.value(LogKey.count) == "0")
        #expect(failed.value(LogKey.error) == "badDatabase")
    }

    /// Saves, fetches, queries and zone changes over records with a distinctive field value: no
    /// captured message, metadata key or value contains it.
    @Test func noRecordFieldValueIsEverLogged() async throws {
        let capture = LogCapture()
        let database = Self.container(capture).privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Private", in: database)
        let records = Self.notes(12, in: zoneID)
        try await OpsTestKit.save(records, in: database)
        _ = try await database.records(for: records.map(\.recordID))
        _ = try await database.records(
            matching: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)), inZoneWith: zoneID)
        let changes = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 4)])
        await OpsTestKit.run(changes, on: database)

        #expect(capture.entries(message: "operation finished").count >= 5)
        #expect(capture.mentions("Private"), "the zone's name, to show the search sees metadata lists")
        #expect(!capture.mentions(Self.secret))
    }
}
