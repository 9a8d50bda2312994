import Foundation
import Stratus
import StratusInMemory
import StratusWebServices
import Testing

@testable import StratusServer

/// The binary `records/changes` answer passes each change-log entry on as it is stored
/// (decision 0018.8, `fetchRawZoneChanges`): read back, it must give the records the decoded
/// path's answer gives — every field type, dates below the millisecond (the reader rounds),
/// lists of dates, locations, parents, tombstones — and refuse a batch holding an asset.
@Suite("Change answers passed on from the change log's entries")
struct RawChangeWritingTests {
    static let zoneID = CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName)

    @Test func rawEntriesReadBackAsTheDecodedAnswersRecords() throws {
        let (database, middle) = try Self.database(withAsset: false)
        var compared = 0
        for token in [nil, middle] {
            let raw = try database.fetchRawZoneChanges(Self.zoneID, since: token, limit: 100)
            let stored = try database.fetchStoredZoneChanges(Self.zoneID, since: token, limit: 100, desiredKeys: nil)
            let rawAnswer = try #require(StratusRecordEncoding.changesAnswer(raw))
            let storedAnswer = try #require(StratusRecordEncoding.changesAnswer(stored))
            let fromRaw = try StratusRecordEncoding.readChangesAnswer(rawAnswer, zoneID: Self.zoneID)
            let fromStored = try StratusRecordEncoding.readChangesAnswer(storedAnswer, zoneID: Self.zoneID)
            #expect(fromRaw.token.data == fromStored.token.data)
            #expect(fromRaw.moreComing == fromStored.moreComing)
            #expect(fromRaw.clientChangeTokenData == fromStored.clientChangeTokenData)
            #expect(fromRaw.changes.count == fromStored.changes.count)
            for (a, b) in zip(fromRaw.changes, fromStored.changes) {
                compared += 1
                switch (a, b) {
                case (.changed(let x), .changed(let y)): Self.expectSame(x, y)
                case (.deleted(let x, let xType), .deleted(let y, let yType)):
                    #expect(x == y && xType == yType)
                default: Issue.record("a change of another kind: \(a) against \(b)")
                }
            }
        }
        #expect(compared == 2 + 2, "records of the nil-token fetch, then a record and a tombstone")
    }

    @Test func aBatchHoldingAnAssetIsNotPassedOn() throws {
        let (database, _) = try Self.database(withAsset: true)
        let raw = try database.fetchRawZoneChanges(Self.zoneID, since: nil, limit: 100)
        #expect(raw.changes.contains { if case .changed(let r) = $0 { r.containsAsset } else { false } })
        #expect(StratusRecordEncoding.changesAnswer(raw) == nil)
    }

    /// Two records, every field type but assets (an asset too with `withAsset`), then a change
    /// and a deletion after `middle`.
    static func database(withAsset: Bool) throws -> (DatabaseContext, CKServerChangeToken) {
        let engine = try Engine(backend: InMemoryBackend())
        let caller = Caller(userRecordName: "_alice", role: .user)
        let namespace = Namespace(container: "iCloud.com.example.raw", environment: .development, owner: "_alice")
        let database = try engine.database(namespace: namespace, scope: .private, caller: caller)
        _ = try database.modifyZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let full = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "full", zoneID: zoneID))
        full["title"] = "Hello \"world\"\n é 🎉"
        full["int"] = Int64.min
        full["small"] = Int8(-5)
        full["double"] = 0.1
        full["date"] = Date(timeIntervalSince1970: 1_700_000_000.123_456)
        full["dates"] = [Date(timeIntervalSince1970: 1.000_4), Date(timeIntervalSince1970: 2.999_6)]
        full["bytes"] = Data([0, 1, 2, 255])
        full["ref"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "other", zoneID: zoneID), action: .none)
        full["location"] = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 48.5, longitude: 2.25), altitude: 35, horizontalAccuracy: 5,
            verticalAccuracy: 6, course: 90, speed: 1.5, timestamp: Date(timeIntervalSince1970: 1_000.000_7))
        full["strings"] = ["a", "b", ""]
        full.parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: "plain", zoneID: zoneID), action: .none)
        let plain = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "plain", zoneID: zoneID))
        plain["title"] = "short"
        var records = [full, plain]
        if withAsset {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("raw-change-\(UUID()).bin")
            try Data("asset content".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let attached = CKRecord(recordType: "File", recordID: CKRecord.ID(recordName: "file", zoneID: zoneID))
            attached["content"] = CKAsset(fileURL: file)
            records.append(attached)
            try database.createAndDelete(records, deleting: [])
        } else {
            try database.createAndDelete(records, deleting: [])
        }
        let middle = try database.fetchZoneChanges(zoneID, since: nil, limit: 100, desiredKeys: nil).token
        let edited = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "again", zoneID: zoneID))
        edited["when"] = Date(timeIntervalSince1970: 5.000_5)
        try database.createAndDelete([edited], deleting: [plain.recordID])
        return (database, middle)
    }

    static func expectSame(_ a: CKRecord, _ b: CKRecord) {
        #expect(a.recordID == b.recordID)
        #expect(a.recordType == b.recordType)
        #expect(a.recordChangeTag == b.recordChangeTag)
        #expect(a.creationDate == b.creationDate)
        #expect(a.modificationDate == b.modificationDate)
        #expect(a.creatorUserRecordID == b.creatorUserRecordID)
        #expect(a.lastModifiedUserRecordID == b.lastModifiedUserRecordID)
        #expect(a.parent?.recordID == b.parent?.recordID)
        #expect(a.allKeys().sorted() == b.allKeys().sorted())
        #expect(a.storedFields.names == b.storedFields.names, "\(a.recordID.recordName)")
        #expect(a.storedFields.values == b.storedFields.values, "\(a.recordID.recordName)")
        #expect(a.changedKeys().isEmpty && b.changedKeys().isEmpty)
    }
}
