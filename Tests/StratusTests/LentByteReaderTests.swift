import Foundation
import Testing

@testable import Stratus

/// Decoding a change-log entry out of bytes a backend lends (decision 0025) gives what decoding
/// a copy of them gives, record for record and string for string, and damaged bytes are an
/// error from either reader.
@Suite struct LentByteReaderTests {
    static let fields: FieldTable = [
        "s": .string("text"), "long": .string(String(repeating: "body of a record ", count: 9)),
        "accented": .string("é\u{301}ñ"), "i": .integer(-3, .int), "d": .double(0.5, .double),
        "t": .date(Date(timeIntervalSinceReferenceDate: 9)), "b": .bytes(Data([0, 1, 0xFF])),
        "r": .reference(ReferenceValue(recordName: "x", zoneName: "Z", ownerName: "_o", action: 1)),
        "l": .list([.string("a"), .integer(Int64.min, .int64), .list([])]),
        "a": .asset(AssetValue(contentID: "c", size: 3, pendingFile: nil)),
    ]

    /// Entries of a batch: two records of one type (the second sharing the first's strings), a
    /// record with a parent and other names, a tombstone.
    static let entries: [ChangeEntry] = [
        ChangeEntry(recordName: "r1", record: record(fields, tag: "7.1")),
        ChangeEntry(recordName: "r2", record: record(fields, tag: "8.1")),
        ChangeEntry(
            recordName: String(repeating: "n", count: 40),
            record: StoredRecord(
                recordType: "Other", position: 9, changeTag: "", creationDate: -1, modificationDate: 0,
                creator: "_é", modifier: "",
                parent: ReferenceValue(recordName: "p", zoneName: "Z", ownerName: "_o", action: 0),
                fields: ["zz": .string("")])),
        ChangeEntry(recordName: "gone", deletedRecordType: "Note"),
    ]

    static func record(_ fields: FieldTable, tag: String) -> StoredRecord {
        StoredRecord(
            recordType: "T", position: 7, changeTag: tag, creationDate: 1.5, modificationDate: 2.5,
            creator: "_c", modifier: "_m", parent: nil, fields: fields)
    }

    @Test func aBatchDecodesAlikeFromLentBytesAndFromArrays() throws {
        var copied = StoredRecord.RepeatedStrings()
        var lent = StoredRecord.RepeatedStrings()
        for entry in Self.entries {
            let bytes = entry.encoded()
            let fromArray = try ChangeEntry(decoding: bytes, strings: &copied)
            let fromLent = try bytes.withUnsafeBytes { buffer in
                var reader = LentByteReader(buffer)
                let decoded = try ChangeEntry(reading: &reader, strings: &lent)
                #expect(reader.isAtEnd)
                return decoded
            }
            for decoded in [fromArray, fromLent] {
                #expect(decoded.recordName == entry.recordName)
                #expect(decoded.deletedRecordType == entry.deletedRecordType)
                #expect(decoded.record?.encoded() == entry.record?.encoded())
                #expect(decoded.record?.fields == entry.record?.fields)
            }
        }
    }

    @Test func damagedEntriesAreErrorsFromEitherReader() throws {
        for entry in Self.entries {
            let good = entry.encoded()
            for cut in 0..<good.count {
                let damaged = Array(good.prefix(cut))
                #expect(throws: (any Error).self, "cut at \(cut) of \(entry.recordName), copied") {
                    _ = try ChangeEntry(decoding: damaged)
                }
                #expect(throws: (any Error).self, "cut at \(cut) of \(entry.recordName), lent") {
                    try damaged.withUnsafeBytes { buffer in
                        var reader = LentByteReader(buffer)
                        var strings = StoredRecord.RepeatedStrings()
                        _ = try ChangeEntry(reading: &reader, strings: &strings)
                    }
                }
            }
        }
    }

    @Test func aRepeatedStringIsReportedUnchangedAndAnotherIsRead() throws {
        var writer = ByteWriter()
        for string in ["", "", "name", "name", "namf", "nam", "é"] { writer.write(string) }
        try writer.bytes.withUnsafeBytes { buffer in
            var reader = LentByteReader(buffer)
            var previous = "x"
            var answers: [String?] = []
            while !reader.isAtEnd {
                let read = try reader.readString(unlessEqualTo: previous)
                answers.append(read)
                previous = read ?? previous
            }
            #expect(answers == ["", nil, "name", nil, "namf", "nam", "é"])
        }
    }
}
