import Foundation
import Testing

@testable import Stratus

/// Reading a change-log entry without decoding it (decision 0018.8): the wire form is the
/// entry without its "no deletion" byte, an asset is found wherever it sits, and damaged
/// bytes are an error, never a record.
@Suite struct RawZoneChangeTests {
    static func entry(_ fields: FieldTable, parent: ReferenceValue? = nil) -> [UInt8] {
        ChangeEntry(
            recordName: "r1",
            record: StoredRecord(
                recordType: "T", position: 7, changeTag: "7.1", creationDate: 1.5, modificationDate: 2.5,
                creator: "_c", modifier: "_m", parent: parent, fields: fields)
        ).encoded()
    }

    static let everyKind: FieldTable = [
        "s": .string("text"), "i": .integer(-3, .int), "d": .double(0.5, .double),
        "t": .date(Date(timeIntervalSinceReferenceDate: 9)), "b": .bytes(Data([0, 1])),
        "r": .reference(ReferenceValue(recordName: "x", zoneName: "Z", ownerName: "_o", action: 0)),
        "l": .list([.string("a"), .integer(1, .int), .list([])]),
    ]

    @Test func aLiveEntryIsItsWireFormWithoutTheDeletionByte() throws {
        let bytes = Self.entry(Self.everyKind)
        guard case .changed(let raw)? = try RawZoneChange(entry: bytes, reportsDeletions: false) else {
            Issue.record("not a live record")
            return
        }
        #expect(!raw.containsAsset)
        var writer = RecordWireWriter()
        writer.record(raw)
        var expected = bytes
        expected.remove(at: raw.nameEnd)
        #expect(writer.bytes == expected)
        #expect(bytes[raw.nameEnd] == 0)
    }

    @Test func assetsAreFoundInFieldsAndLists() throws {
        let asset = FieldValue.asset(AssetValue(contentID: "c", size: 3, pendingFile: nil))
        for fields: FieldTable in [["a": asset], ["s": .string("x"), "z": .list([.string("y"), asset])]] {
            guard case .changed(let raw)? = try RawZoneChange(entry: Self.entry(fields), reportsDeletions: true) else {
                Issue.record("not a live record")
                continue
            }
            #expect(raw.containsAsset)
        }
    }

    @Test func tombstonesAreReportedOnlyWhenAskedFor() throws {
        let tombstone = ChangeEntry(recordName: "gone", deletedRecordType: "Note").encoded()
        #expect(try RawZoneChange(entry: tombstone, reportsDeletions: false) == nil)
        guard case .deleted(let name, let type)? = try RawZoneChange(entry: tombstone, reportsDeletions: true) else {
            Issue.record("not a tombstone")
            return
        }
        #expect(name == "gone" && type == "Note")
    }

    @Test func damagedEntriesAreErrors() throws {
        let parent = ReferenceValue(recordName: "p", zoneName: "Z", ownerName: "_o", action: 0)
        let good = Self.entry(Self.everyKind, parent: parent)
        #expect(try RawZoneChange(entry: good, reportsDeletions: true) != nil)
        for cut in [0, 1, 3, 9, good.count / 2, good.count - 1] {
            #expect(throws: (any Error).self, "cut at \(cut)") {
                _ = try RawZoneChange(entry: Array(good.prefix(cut)), reportsDeletions: true)
            }
        }
        #expect(throws: (any Error).self, "a byte too many") {
            _ = try RawZoneChange(entry: good + [0], reportsDeletions: true)
        }
    }
}
