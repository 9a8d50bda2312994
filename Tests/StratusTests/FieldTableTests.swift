import Foundation
import Testing

@testable import Stratus

/// A record's fields as a sorted table: it must behave as the dictionary it replaced, whatever
/// order names arrive in, at sizes on both sides of its scan/bisect threshold.
@Suite struct FieldTableTests {
    /// Random names, some repeated, some removed: the table agrees with a dictionary after
    /// every step, and stays sorted with each name once.
    @Test(arguments: [3, 8, 9, 40])
    func behavesAsADictionary(names count: Int) {
        var generator = SplitMix(seed: UInt64(count))
        var table = FieldTable()
        var dictionary: [String: FieldValue] = [:]
        for step in 0..<(count * 12) {
            let name = "f\(generator.next() % UInt64(count))"
            let value: FieldValue? = generator.next() % 4 == 0 ? nil : .integer(Int64(step), .int)
            table[name] = value
            dictionary[name] = value
            #expect(table[name] == dictionary[name])
            #expect(table.count == dictionary.count)
            #expect(table.keys == dictionary.keys.sorted())
        }
        for (name, value) in dictionary { #expect(table[name] == value) }
        #expect(table["absent"] == nil)
        #expect(FieldTable(dictionary) == table)
    }

    /// Decoded fields are taken as they are when sorted; fields decoded in another order (a
    /// damaged or foreign encoding) still make a sorted table, keeping the last value of a
    /// repeated name.
    @Test func decodedFieldsEndUpSorted() {
        let inOrder = FieldTable(decoded: ["a", "b"], [.string("1"), .string("2")], sortedASCII: true)
        #expect(inOrder.keys == ["a", "b"])
        #expect(inOrder["b"] == .string("2"))
        let table = FieldTable(
            decoded: ["b", "d", "a", "c", "d"], [.string("1"), .string("2"), .string("3"), .string("4"), .string("5")],
            sortedASCII: false)
        #expect(table.keys == ["a", "b", "c", "d"])
        #expect(table["d"] == .string("5"))
        #expect(table.map(\.value) == [.string("3"), .string("1"), .string("4"), .string("5")])
    }

    /// Equal tables hash equally and compare equal however they were built; a different
    /// value or name makes them differ.
    @Test func equalityAndHashing() {
        let built: FieldTable = ["title": .string("t"), "n": .integer(1, .int)]
        var assigned = FieldTable()
        assigned["n"] = .integer(1, .int)
        assigned["title"] = .string("t")
        #expect(built == assigned)
        #expect(built.hashValue == assigned.hashValue)
        assigned["n"] = .integer(2, .int)
        #expect(built != assigned)
        assigned["n"] = nil
        #expect(built != assigned)
    }

    /// A record reads and lists its fields in name order, and removing one through the
    /// subscript leaves the others.
    @Test func aRecordsKeysAreSortedAndRemovable() {
        let record = CKRecord(recordType: "T")
        for name in ["zeta", "alpha", "mu", "beta"] { record[name] = name }
        #expect(record.allKeys() == ["alpha", "beta", "mu", "zeta"])
        record["mu"] = nil
        #expect(record.allKeys() == ["alpha", "beta", "zeta"])
        #expect(record["zeta"] as? String == "zeta")
        #expect(record.changedKeys() == ["zeta", "alpha", "mu", "beta"])
    }

    /// A small deterministic generator.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
