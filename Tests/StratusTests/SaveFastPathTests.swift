import Testing

@testable import Stratus

/// The save path's hand-written fast versions agree with the library code they replace.
@Suite struct SaveFastPathTests {
    @Test(arguments: [Int64(0), 1, 35, 36, 1295, 1296, 123_456_789, -1, -36, .max, .min])
    func changeTagsAreTheBase36FormsJoinedByADot(_ value: Int64) {
        for zone: Int64 in [0, 1, 37, -5, value] {
            let expected = String(value, radix: 36) + "." + String(zone, radix: 36)
            #expect(DatabaseContext.changeTag(position: value, zone: zone) == expected)
        }
    }

    @Test(arguments: [
        "", "a", "Item", "title_2", "_hidden", "2fast", "with space", "héllo", "a-b", "Z9_",
        String(repeating: "x", count: 40), "tab\tname", "emoji😀",
    ])
    func namesAreJudgedAsByteByByte(_ name: String) {
        let bytes = Array(name.utf8)
        #expect(Validation.isASCII(name) == bytes.allSatisfy { $0 < 0x80 })
        let letter = { (b: UInt8) in (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) }
        let expected =
            !bytes.isEmpty && letter(bytes[0])
            && bytes.dropFirst().allSatisfy { letter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        #expect(Validation.isIdentifier(name) == expected)
        // A bridged or substring-made string takes the other path.
        let made = String(Substring(name + "!").dropLast())
        #expect(Validation.isIdentifier(made) == expected)
    }

    @Test(arguments: ["", "abc", "a\u{0}b", "\u{0}", "héllo", String(repeating: "n", count: 300)])
    func keyStringsAreEscapedAsByteByByte(_ value: String) {
        var key = OrderedKey(capacity: 8)
        key.append(value)
        var expected: [UInt8] = [OrderedKey.stringTag]
        for byte in value.utf8 {
            expected.append(byte)
            if byte == 0 { expected.append(0xFF) }
        }
        expected.append(0)
        #expect(key.bytes == expected)
    }

    @Test func fieldTablesStaySortedWhenFieldsAreAppended() {
        var table = FieldTable()
        for name in ["title", "body", "rank", "zeta", "alpha", "zz"] { table[name] = .string(name) }
        #expect(table.map(\.key) == ["alpha", "body", "rank", "title", "zeta", "zz"])
    }

    /// Records decoded in one batch share their field names when they repeat; a batch whose
    /// records change shape (more, fewer, other, non-ASCII names) still decodes each exactly.
    @Test func batchesOfChangingShapesDecodeExactly() throws {
        let shapes: [[String]] = [
            ["a", "b", "c"], ["a", "b", "c"], ["a", "b"], ["a", "b", "c", "d"], [], ["x"], ["\u{E9}", "a"],
            ["\u{E9}", "a"], ["a", "b", "c"], ["b"], ["a", "b", "c"],
        ]
        var writer = ByteWriter()
        var tables: [FieldTable] = []
        for (n, names) in shapes.enumerated() {
            var table = FieldTable()
            for name in names { table[name] = .integer(Int64(n), .int) }
            tables.append(table)
            StoredRecord(
                recordType: "T", position: Int64(n), changeTag: "t", creationDate: 1, modificationDate: 2,
                creator: "c", modifier: "m", parent: nil, fields: table
            ).write(to: &writer)
        }
        var reader = ByteReader(writer.bytes)
        var strings = StoredRecord.RepeatedStrings()
        for table in tables {
            let decoded = try StoredRecord(reading: &reader, strings: &strings).fields
            #expect(decoded == table)
            for (name, value) in table { #expect(decoded[name] == value) }
            #expect(decoded.count == table.count)
        }
    }
}
