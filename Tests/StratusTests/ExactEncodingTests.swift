import Foundation
import Testing

@testable import Stratus

/// A change-log entry is counted, then written into an array of exactly that size
/// (`ByteCounter`, `FixedByteWriter`): the bytes are those the growing `ByteWriter` writes for
/// the same entry, byte for byte, so the stored format does not move.
@Suite struct ExactEncodingTests {
    /// Entries whose strings and byte strings need one-, two- and three-byte length prefixes,
    /// with every kind of value, a parent, a tombstone.
    static let entries: [ChangeEntry] =
        LentByteReaderTests.entries + [
            ChangeEntry(
                recordName: String(repeating: "é", count: 100),
                record: StoredRecord(
                    recordType: String(repeating: "T", count: 127), position: -1, changeTag: "1.2",
                    creationDate: .nan, modificationDate: -0.0, creator: "", modifier: "_m", parent: nil,
                    fields: [
                        "big": .bytes(Data(repeating: 7, count: 20_000)),
                        "s128": .string(String(repeating: "s", count: 128)),
                        "loc": .location(
                            LocationValue(
                                latitude: 1, longitude: 2, altitude: 3, horizontalAccuracy: 4, verticalAccuracy: 5,
                                course: 6, speed: 7, timestamp: 8)),
                        "bad": .invalid("a value of type Foo"),
                        "many": .list((0..<200).map { .integer(Int64($0), .int) }),
                        "empty": .bytes(Data()),
                    ])),
            ChangeEntry(recordName: "", deletedRecordType: ""),
        ]

    /// `ByteWriter`'s bytes for `entry`: how every entry was written before.
    static func grown(_ entry: ChangeEntry) -> [UInt8] {
        var writer = ByteWriter()
        entry.write(to: &writer)
        return writer.bytes
    }

    @Test func theExactBytesAreTheGrownBytes() {
        for entry in Self.entries {
            var counter = ByteCounter()
            entry.write(to: &counter)
            let grown = Self.grown(entry)
            #expect(counter.count == grown.count, "\(entry.recordName.prefix(8))")
            #expect(entry.encoded() == grown, "\(entry.recordName.prefix(8))")
        }
    }

    /// The format itself, written out by hand for a small record and a tombstone, so that a
    /// change made to every writer at once is caught too.
    @Test func aSmallEntryHasTheDocumentedBytes() {
        func le(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let record = StoredRecord(
            recordType: "T", position: 7, changeTag: "", creationDate: 1.5, modificationDate: 2.5, creator: "",
            modifier: "", parent: nil, fields: ["s": .string("x"), "n": .integer(-2, .int)])
        var expected: [UInt8] = [1, 0x72, 0]  // name "r", live
        expected += [1, 1, 0x54] + le(7) + [0] + le(1.5.bitPattern) + le(2.5.bitPattern) + [0, 0, 0]
        expected += [2, 1, 0x6E, 2, 0] + le(UInt64(bitPattern: -2)) + [1, 0x73, 1, 1, 0x78]
        #expect(ChangeEntry(recordName: "r", record: record).encoded() == expected)
        #expect(ChangeEntry(recordName: "g", deletedRecordType: "N").encoded() == [1, 0x67, 1, 1, 0x4E])
    }

    @Test func varintLengthsMatchTheWrittenVarints() {
        for value in [0, 1, 127, 128, 16_383, 16_384, Int(Int32.max), Int.max] {
            var writer = ByteWriter()
            writer.writeVarint(value)
            #expect(ByteCounter.varintLength(value) == writer.bytes.count, "\(value)")
        }
    }
}
