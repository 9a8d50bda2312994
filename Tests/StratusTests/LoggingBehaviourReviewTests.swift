import Foundation
import Logging
import Stratus
import StratusInMemory
import StratusTestSupport
import Synchronization
import Testing

/// Logging changes no behaviour (review): the same operations deliver the same callbacks, in
/// the same order, with the same errors, whether the container's logger captures everything at
/// trace level, is at `critical`, or discards everything.
@Suite struct LoggingBehaviourReviewTests {
    /// The callbacks of a fixed script of operations, as text, in delivery order.
    private static func script(logger: Logger) async throws -> [String] {
        let container = CKContainer(identifier: "iCloud.test.behaviour", backend: InMemoryBackend(), logger: logger)
        let database = container.privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let events = Mutex<[String]>([])
        func note(_ text: String) { events.withLock { $0.append(text) } }
        func code<T>(_ result: Result<T, any Error>) -> String {
            OpsTestKit.code(result).map { "\($0.rawValue)" } ?? "ok"
        }

        // A modify with a per-item failure (a missing parent) and a successful save.
        let good = CKRecord(recordType: "N", recordID: CKRecord.ID(recordName: "good", zoneID: zoneID))
        good["v"] = 1
        let orphan = CKRecord(recordType: "N", recordID: CKRecord.ID(recordName: "orphan", zoneID: zoneID))
        orphan.setParent(CKRecord.ID(recordName: "missing", zoneID: zoneID))
        let modify = CKModifyRecordsOperation(recordsToSave: [good, orphan], recordIDsToDelete: nil)
        modify.isAtomic = false
        modify.perRecordSaveBlock = { id, result in
            note("save \(id.recordName) \(code(result))")
        }
        modify.modifyRecordsResultBlock = { result in note("modify \(code(result))") }
        await OpsTestKit.run(modify, on: database)

        // More records, then the zone's changes in small batches.
        let more = (0..<7).map { index in
            let record = CKRecord(recordType: "N", recordID: CKRecord.ID(recordName: "r\(index)", zoneID: zoneID))
            record["v"] = index
            return record
        }
        _ = try await OpsTestKit.save(more, in: database)
        let changes = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 3)])
        changes.fetchAllChanges = true
        changes.recordWasChangedBlock = { id, result in note("changed \(id.recordName) \(code(result))") }
        changes.recordZoneChangeTokensUpdatedBlock = { zone, _, _ in note("token \(zone.zoneName)") }
        changes.recordZoneFetchResultBlock = { zone, result in note("zone \(zone.zoneName) \(code(result))") }
        changes.fetchRecordZoneChangesResultBlock = { result in note("changes \(code(result))") }
        await OpsTestKit.run(changes, on: database)

        // A fetch of a record that exists and one that does not, and a zone that does not.
        let fetch = CKFetchRecordsOperation(recordIDs: [
            CKRecord.ID(recordName: "r1", zoneID: zoneID), CKRecord.ID(recordName: "nope", zoneID: zoneID),
        ])
        fetch.perRecordResultBlock = { id, result in note("fetch \(id.recordName) \(code(result))") }
        fetch.fetchRecordsResultBlock = { result in note("fetch \(code(result))") }
        await OpsTestKit.run(fetch, on: database)
        let missingZone = CKRecordZone.ID(zoneName: "Missing")
        let query = CKQueryOperation(query: CKQuery(recordType: "N", predicate: NSPredicate(value: true)))
        query.zoneID = missingZone
        query.recordMatchedBlock = { id, result in note("match \(id.recordName) \(code(result))") }
        query.queryResultBlock = { result in note("query \(code(result))") }
        await OpsTestKit.run(query, on: database)
        return events.withLock { $0 }
    }

    @Test func callbacksOrderAndErrorsAreTheSameAtTraceAndWithLoggingOff() async throws {
        let capture = LogCapture()
        let traced = try await Self.script(logger: capture.logger)
        var critical = Logger(label: "stratus.test.quiet") { _ in SwiftLogNoOpLogHandler() }
        critical.logLevel = .critical
        let quiet = try await Self.script(logger: critical)
        let off = try await Self.script(logger: Logger(label: "stratus.test.off") { _ in SwiftLogNoOpLogHandler() })
        #expect(capture.entries(message: "operation finished").count >= 4, "trace level really logged")
        #expect(traced == quiet)
        #expect(traced == off)
        #expect(traced.contains("save orphan \(CKError.Code.referenceViolation.rawValue)"))
        #expect(!capture.mentions("orphan"), "no record name is logged")
        #expect(!capture.mentions("r1"), "no record name is logged")
    }
}
