import Foundation
import Testing

@testable import Stratus

/// The long-lived journal's encodings: what a proxy replays must be what the original
/// delivered — every field, system field, changed key and local asset file of a record; every
/// part of an error a client reads; values of any size split into parts and joined again.
@Suite struct JournalCodingTests {
    static let zone = CKRecordZone.ID(zoneName: "Z", ownerName: "owner")

    static func roundTrip(_ record: CKRecord) throws -> CKRecord {
        var writer = ByteWriter()
        writer.write(record: record)
        var reader = ByteReader(writer.bytes)
        let decoded = try reader.readRecord(materializingIn: nil)
        #expect(reader.isAtEnd)
        return decoded
    }

    @Test func recordsKeepEveryFieldSystemFieldChangedKeyAndAssetFile() throws {
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r", zoneID: Self.zone))
        record["string"] = "text"
        record["int"] = 42
        record["double"] = 2.5
        record["date"] = Date(timeIntervalSinceReferenceDate: 1234.5)
        record["bytes"] = Data([0, 1, 2])
        record["list"] = ["a", "b"]
        record["location"] = CLLocation(latitude: 1, longitude: 2)
        record["reference"] = CKRecord.Reference(
            recordID: CKRecord.ID(recordName: "other", zoneID: Self.zone), action: .deleteSelf)
        record["asset"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/journal-asset"))
        record.setParent(CKRecord.ID(recordName: "parent", zoneID: Self.zone))
        record.state.withLock {
            $0.system.changeTag = "tag-1"
            $0.system.creationDate = Date(timeIntervalSinceReferenceDate: 10)
            $0.system.modificationDate = Date(timeIntervalSinceReferenceDate: 20)
            $0.system.creatorUserRecordName = "creator"
            $0.system.lastModifiedUserRecordName = "modifier"
        }
        let decoded = try Self.roundTrip(record)
        #expect(decoded.recordID == record.recordID)
        #expect(decoded.recordType == "Item")
        #expect(decoded.fieldValues == record.fieldValues)
        #expect(decoded.systemFields == record.systemFields)
        #expect(decoded.changedKeys() == record.changedKeys())
        #expect((decoded["asset"] as? CKAsset)?.fileURL?.path == "/tmp/journal-asset")
    }

    @Test func errorsKeepCodeMessageRetryConflictRecordsAndPartialErrors() throws {
        let server = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r", zoneID: Self.zone))
        server["n"] = 1
        let client = server.copy() as! CKRecord
        client["n"] = 2
        let conflict = CKError.make(
            .serverRecordChanged, "changed",
            userInfo: [
                CKRecordChangedErrorServerRecordKey: server, CKRecordChangedErrorClientRecordKey: client,
                CKRecordChangedErrorAncestorRecordKey: server, CKErrorRetryAfterKey: NSNumber(value: 3.5),
            ])
        let partial = CKError.make(
            .partialFailure, "some failed",
            userInfo: [
                CKPartialErrorsByItemIDKey: [
                    AnyHashable(server.recordID): conflict,
                    AnyHashable(Self.zone): CKError.make(.zoneNotFound, "no zone"),
                    AnyHashable("subscription"): CKError.make(.unknownItem, "no subscription"),
                ] as [AnyHashable: CKError]
            ])
        var writer = ByteWriter()
        writer.write(error: partial)
        var reader = ByteReader(writer.bytes)
        let decoded = try reader.readError(materializingIn: nil)
        #expect(reader.isAtEnd)
        #expect(decoded.code == .partialFailure)
        #expect(decoded.localizedDescription == "some failed")
        let items = try #require(decoded.partialErrorsByItemID)
        #expect(items.count == 3)
        #expect((items["subscription"] as? CKError)?.code == .unknownItem)
        #expect((items[AnyHashable(Self.zone)] as? CKError)?.code == .zoneNotFound)
        let decodedConflict = try #require(items[AnyHashable(server.recordID)] as? CKError)
        #expect(decodedConflict.code == .serverRecordChanged)
        #expect(decodedConflict.retryAfterSeconds == 3.5)
        #expect(decodedConflict.serverRecord?["n"] as? Int == 1)
        #expect(decodedConflict.clientRecord?["n"] as? Int == 2)
        #expect(decodedConflict.ancestorRecord?.recordID == server.recordID)
    }

    @Test(arguments: [
        0, 1, 1000, JournalKeys.partSize - 1, JournalKeys.partSize, JournalKeys.partSize + 1,
        3 * JournalKeys.partSize + 5,
    ])
    func valuesOfAnySizeSplitIntoPartsAndJoin(size: Int) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let parts = OperationJournal.parts(of: bytes)
        #expect(parts.allSatisfy { $0.count <= JournalKeys.partSize + 8 })
        #expect(parts.count == max(1, (size + JournalKeys.partSize - 1) / JournalKeys.partSize))
        #expect(try OperationJournal.joined(parts) == bytes)
        if parts.count > 1 { #expect(try OperationJournal.joinedIfComplete(Array(parts.dropLast())) == nil) }
    }

    @Test func queriesAndCursorsKeepEverySortDescriptor() throws {
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: "n > %d AND name BEGINSWITH %@", 3, "a"))
        query.sortDescriptors = [
            NSSortDescriptor(key: "n", ascending: false),
            CKLocationSortDescriptor(key: "place", relativeLocation: CLLocation(latitude: 48.1, longitude: 11.5)),
        ]
        let cursor = CKQueryCursor(data: Data([1, 2, 3]), query: query, zoneID: Self.zone)
        var writer = ByteWriter()
        try writer.write(cursor: cursor)
        var reader = ByteReader(writer.bytes)
        let decoded = try reader.readCursor()
        #expect(reader.isAtEnd)
        #expect(decoded.data == cursor.data)
        #expect(decoded.zoneID == Self.zone)
        #expect(decoded.query.recordType == "Item")
        #expect(decoded.query.predicate.stratusPredicateFormat == query.predicate.stratusPredicateFormat)
        #expect(try decoded.query.sortKeys() == query.sortKeys())
        #expect(decoded.query.sortDescriptors?.last is CKLocationSortDescriptor)
    }

    @Test func headersRoundTrip() throws {
        var header = JournalHeader(kind: "CKQueryOperation", scope: 2, createdAt: 100)
        header.state = .completed
        header.finishedAt = 200
        header.nextSequence = 7
        #expect(try JournalHeader(decoding: header.encoded()) == header)
    }
}
