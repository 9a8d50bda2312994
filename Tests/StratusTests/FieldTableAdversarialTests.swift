import Foundation
import StratusTestSupport
import Testing

@testable import Stratus

/// The sorted field table attacked with names whose `String` equality and order differ from
/// their bytes, at sizes on both sides of its scan/bisect threshold, and through every
/// encoding a record's fields go through.
@Suite struct FieldTableAdversarialTests {
    /// Pairs (and triples) of names `String` holds equal though their bytes differ.
    static let equivalentSpellings: [[String]] = [
        ["\u{E9}", "e\u{301}"],  // é precomposed, decomposed
        ["\u{C5}", "\u{212B}", "A\u{30A}"],  // Å, Ångström sign, A + ring
        ["\u{D55C}", "\u{1112}\u{1161}\u{11AB}"],  // 한, as a syllable and as jamo
        ["a\u{323}\u{302}", "a\u{302}\u{323}", "\u{1EAD}"],  // ậ: combining marks in either order
        ["caf\u{E9}s", "cafe\u{301}s"],
    ]

    /// Names whose `String` order is not their byte order, and other oddities.
    static let oddNames: [String] = [
        "\u{212B}x", "\u{C7}", "Z", "a", "A", "_", "0", "\u{FB01}", "fi", "\u{1F600}", "\u{1F468}\u{200D}\u{1F469}",
        "\r\n", "\r", "\n", "\u{0}", "", "e", "\u{E9}t\u{E9}", "ete\u{301}", "\u{3B1}", "\u{410}", "zz", "\u{FFFF}",
    ]

    /// Every spelling of an equivalent name reaches the one field, whatever the size of the
    /// table around it; the table keeps the first spelling, and removing through another
    /// spelling removes it.
    @Test(arguments: [0, 1, 6, 7, 8, 9, 10, 16, 300])
    func equivalentSpellingsAreOneField(fillers: Int) {
        for spellings in Self.equivalentSpellings {
            var table = FieldTable()
            for n in 0..<fillers { table["f\(n)"] = .integer(Int64(n), .int) }
            table[spellings[0]] = .string("first")
            for (n, spelling) in spellings.enumerated().dropFirst() {
                #expect(table[spelling] == .string(n == 1 ? "first" : "v\(n - 1)"))
                table[spelling] = .string("v\(n)")
                #expect(table.count == fillers + 1, "\(spellings) with \(fillers) fillers")
            }
            let stored = table.keys.filter { $0 == spellings[0] }
            #expect(stored.count == 1)
            #expect(stored.first.map { Array($0.utf8) } == Array(spellings[0].utf8), "the first spelling is kept")
            table[spellings.last!] = nil
            #expect(table.count == fillers)
            for spelling in spellings { #expect(table[spelling] == nil) }
            for n in 0..<fillers { #expect(table["f\(n)"] == .integer(Int64(n), .int)) }
        }
    }

    /// Random inserts and removals over odd and equivalent names agree with a dictionary after
    /// every step; each name is there once.
    @Test(arguments: [1, 2, 3, 4])
    func agreesWithADictionaryOverUnicodeNames(seed: UInt64) {
        let pool = Self.oddNames + Self.equivalentSpellings.flatMap { $0 } + (0..<12).map { "n\($0)" }
        var generator = FieldTableTests.SplitMix(seed: seed)
        var table = FieldTable()
        var dictionary: [String: FieldValue] = [:]
        for step in 0..<2000 {
            let name = pool[Int(generator.next() % UInt64(pool.count))]
            let value: FieldValue? = generator.next() % 3 == 0 ? nil : .integer(Int64(step), .int)
            table[name] = value
            dictionary[name] = value
            #expect(table[name] == dictionary[name])
            #expect(table.count == dictionary.count)
        }
        #expect(Self.eachNameOnce(table))
        for (name, value) in dictionary { #expect(table[name] == value) }
        #expect(FieldTable(dictionary) == table)
        // Decoded in any order, the same fields make the same table.
        var shuffled = Array(dictionary)
        for index in shuffled.indices.reversed() {
            shuffled.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        #expect(FieldTable(decoded: shuffled.map(\.key), shuffled.map(\.value), sortedASCII: false) == table)
    }

    /// Random short names made of scalars that compose, decompose and reorder (combining marks
    /// of different classes, Hangul jamo, singletons): lookups by any spelling agree with a
    /// dictionary at every size the table passes through.
    @Test(arguments: [5, 6])
    func agreesWithADictionaryOverRandomCombiningSequences(seed: UInt64) {
        let scalars: [Unicode.Scalar] = [
            "e", "a", "A", "\u{301}", "\u{323}", "\u{302}", "\u{30A}", "\u{212B}", "\u{C5}", "\u{E9}", "\u{1112}",
            "\u{1161}", "\u{11AB}", "\u{D55C}", "\u{345}", "\u{1E0C}", "\u{307}", "\u{1E0A}", "\u{FB01}",
        ]
        var generator = FieldTableTests.SplitMix(seed: seed)
        func randomName() -> String {
            var name = String.UnicodeScalarView()
            for _ in 0..<(1 + Int(generator.next() % 4)) { name.append(scalars[Int(generator.next() % 19)]) }
            return String(name)
        }
        var table = FieldTable()
        var dictionary: [String: FieldValue] = [:]
        for step in 0..<3000 {
            let name = randomName()
            let value: FieldValue? = generator.next() % 5 == 0 ? nil : .integer(Int64(step), .int)
            table[name] = value
            dictionary[name] = value
            #expect(table.count == dictionary.count)
            let probe = randomName()
            #expect(table[probe] == dictionary[probe], "\(Array(probe.unicodeScalars))")
        }
        #expect(Self.eachNameOnce(table))
        for (name, value) in dictionary { #expect(table[name] == value) }
        // Without the names that are not ASCII, the rest is sorted again.
        for name in table.keys where !name.utf8.allSatisfy({ $0 < 0x80 }) { table[name] = nil }
        #expect(zip(table.keys, table.keys.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// Whether no two names of `table` are equal.
    static func eachNameOnce(_ table: FieldTable) -> Bool {
        table.keys.indices.allSatisfy { i in !table.keys[(i + 1)...].contains(table.keys[i]) }
    }

    /// Swift 6.3's `<` holds neither way between "e\u{301}" and "\u{E9}a": a record of more
    /// than 8 fields given "é" decomposed, then "éa" precomposed, then "éa" decomposed must
    /// still have one "éa" field (bisecting by `<` made two), and encode to JSON (which traps
    /// on a repeated name) and back.
    @Test func aNameThatStringOrdersInconsistentlyIsStillOneField() throws {
        let record = CKRecord(recordType: "T")
        for n in 0..<9 { record["a\(n)"] = n }
        record["e\u{301}"] = 1
        record["\u{E9}a"] = 2
        record["e\u{301}a"] = 3
        try #require(record.allKeys().count == 11, "\(record.allKeys().map { Array($0.unicodeScalars) })")
        #expect(record["\u{E9}a"] as? Int == 3)
        #expect(record["e\u{301}a"] as? Int == 3)
        #expect(record["\u{E9}"] as? Int == 1)
        let decoded = try JSONDecoder().decode(CKRecord.self, from: JSONEncoder().encode(record))
        #expect(decoded.fieldValues == record.fieldValues)
        #expect(decoded["e\u{301}a"] as? Int == 3)
        record["\u{E9}a"] = nil
        #expect(record.object(forKey: "e\u{301}a") == nil)
        #expect(record.allKeys().count == 10)
        // Kelvin sign: equal to "K" for String, found by either spelling.
        record["K"] = "kelvin"
        #expect(record["\u{212A}"] as? String == "kelvin")
    }

    /// A table of unicode names and every kind of value comes back from the stored form
    /// equal, in the same order, each name with its own bytes; a second record of the batch
    /// whose names are other spellings at the same places keeps its own spellings.
    @Test func storedRecordsKeepEveryNameByteForByte() throws {
        var first = FieldTable()
        var second = FieldTable()
        for (n, name) in (Self.oddNames + Self.equivalentSpellings.map { $0[0] }).enumerated() {
            first[name] = Self.value(n)
        }
        for (n, name) in (Self.oddNames + Self.equivalentSpellings.map { $0[1] }).enumerated() {
            second[name] = Self.value(n + 1)
        }
        var writer = ByteWriter()
        for fields in [first, second] {
            StoredRecord(
                recordType: "T", position: 1, changeTag: "t", creationDate: 1, modificationDate: 2, creator: "c",
                modifier: "m", parent: nil, fields: fields
            ).write(to: &writer)
        }
        var reader = ByteReader(writer.bytes)
        var strings = StoredRecord.RepeatedStrings()
        for fields in [first, second] {
            let decoded = try StoredRecord(reading: &reader, strings: &strings).fields
            #expect(decoded == fields)
            #expect(decoded.keys.map { Array($0.utf8) } == fields.keys.map { Array($0.utf8) })
            #expect(decoded.values == fields.values)
        }
    }

    /// Stored fields that are not in `String` order (byte order, a repeated name, another
    /// spelling of a name) decode into a table with each name once, keeping the last value of
    /// a repeated name.
    @Test func storedFieldsOutOfOrderAreSortedOnDecode() throws {
        let empty = StoredRecord(
            recordType: "T", position: 1, changeTag: "t", creationDate: 1, modificationDate: 2, creator: "c",
            modifier: "m", parent: nil, fields: [:]
        ).encoded()
        #expect(empty.last == 0)
        var writer = ByteWriter()
        for byte in empty.dropLast() { writer.write(byte) }
        // Byte order: "\u{C7}" (C3 87) before "\u{212B}" (E2 84 AB), which String sorts first.
        let names = ["\u{C7}", "\u{212B}", "b", "a", "\u{C5}", "e\u{301}", "\u{E9}"]
        writer.writeVarint(names.count)
        for (n, name) in names.enumerated() {
            writer.write(name)
            FieldValueCodec.write(.integer(Int64(n), .int), to: &writer)
        }
        let decoded = try StoredRecord(decoding: writer.bytes).fields
        #expect(decoded.count == 5)
        #expect(Self.eachNameOnce(decoded))
        #expect(decoded["\u{212B}"] == .integer(4, .int))
        #expect(decoded["\u{C7}"] == .integer(0, .int))
        #expect(decoded["e\u{301}"] == .integer(6, .int))
        #expect(decoded["a"] == .integer(3, .int))
    }

    /// A record with hundreds of fields, unicode names among them, comes back whole from
    /// NSKeyedArchiver, JSON and the journal: the same names (bytes), order, values and
    /// types; the journal also keeps the changed keys in order.
    @Test func aRecordWithHundredsOfFieldsSurvivesEveryCoding() throws {
        let zone = CKRecordZone.ID(zoneName: "Z", ownerName: "owner")
        let record = CKRecord(recordType: "Wide", recordID: CKRecord.ID(recordName: "w", zoneID: zone))
        let names =
            (0..<300).map { "f\($0)" } + Self.oddNames.filter { !$0.isEmpty }
            + Self.equivalentSpellings.map { $0[1] }
        for (n, name) in names.enumerated() { record.state.withLock { $0.values[name] = Self.value(n) } }
        for name in names.reversed() where name.hasPrefix("f1") {
            record.setObject(record.object(forKey: name), forKey: name)
        }
        let expected = record.fieldValues
        #expect(expected.count == names.count)

        let archive = try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true)
        let unarchived = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: archive))
        let json = try JSONDecoder().decode(CKRecord.self, from: JSONEncoder().encode(record))
        var writer = ByteWriter()
        writer.write(record: record)
        var reader = ByteReader(writer.bytes)
        let journaled = try reader.readRecord(materializingIn: nil)
        #expect(journaled.changedKeys() == record.changedKeys())
        for (coding, decoded) in [("archive", unarchived), ("json", json), ("journal", journaled)] {
            let fields = decoded.fieldValues
            #expect(fields == expected, "\(coding)")
            #expect(
                fields.keys.map { Array($0.utf8) } == expected.keys.map { Array($0.utf8) }, "\(coding): names")
            #expect(decoded.allKeys() == record.allKeys(), "\(coding)")
        }
    }

    /// changedKeys lists each name once, in the order first changed, whatever the spelling;
    /// removing and adding again keeps one entry; a copy changes apart from its original.
    @Test func changedKeysListEachNameOnce() {
        let record = CKRecord(recordType: "T")
        record["\u{E9}"] = 1
        record["b"] = "b"
        record["e\u{301}"] = 2
        record["b"] = nil
        record["b"] = "again"
        record.setValue(NSObject(), forKey: "bad")
        record.setValue(nil, forKey: "bad")
        #expect(record.changedKeys() == ["\u{E9}", "b", "bad"])
        #expect(record.allKeys() == ["b", "\u{E9}"])
        #expect(record["\u{E9}"] as? Int == 2)
        let copy = record.copy() as! CKRecord
        copy["c"] = 3
        copy["b"] = nil
        #expect(record.allKeys() == ["b", "\u{E9}"])
        #expect(record.changedKeys() == ["\u{E9}", "b", "bad"])
        #expect(copy.allKeys() == ["c", "\u{E9}"])
        #expect(copy.changedKeys() == ["\u{E9}", "b", "bad", "c"])
    }

    /// Through the engine: a record of 300 fields (mixed case, around the bisect threshold)
    /// saves and fetches whole; a desiredKeys fetch returns exactly the asked fields that
    /// exist; a query finds it by a field in the middle.
    @Test func hundredsOfFieldsThroughTheEngine() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let record = CKRecord(recordType: "Wide", recordID: CKRecord.ID(recordName: "w", zoneID: zoneID))
        let names = (0..<300).map { n in n % 3 == 0 ? "F\(n)" : n % 3 == 1 ? "f\(n)" : "f_\(n)x" }
        for (n, name) in names.enumerated() {
            if n % 2 == 0 { record[name] = n } else { record[name] = "s\(n)" }
        }
        let saved = try #require(try await OpsTestKit.save([record], in: database).first)
        #expect(saved.allKeys() == names.sorted())
        let fetched = try await database.record(for: record.recordID)
        #expect(fetched.allKeys() == names.sorted())
        for (n, name) in names.enumerated() {
            if n % 2 == 0 {
                #expect(fetched[name] as? Int == n, "\(name)")
            } else {
                #expect(fetched[name] as? String == "s\(n)", "\(name)")
            }
        }
        let desired = ["F150", "f1", "absent", "f_299x", "F0", "f2"]
        let partial = try #require(
            try await database.records(for: [record.recordID], desiredKeys: desired)[record.recordID]?.get())
        #expect(partial.allKeys() == ["F0", "F150", "f1", "f_299x"])
        #expect(partial["F150"] as? Int == 150)
        let query = CKQuery(recordType: "Wide", predicate: NSPredicate(format: "F150 == %d", 150))
        let found = try await database.records(matching: query, inZoneWith: zoneID).matchResults
        #expect(found.map(\.0) == [record.recordID])
    }

    /// `.changedKeys` merges only the changed names onto the server's record: another
    /// client's change to other fields survives, a removed field goes, a new one comes.
    @Test func changedKeysPolicyMergesOntoTheServerRecord() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let record = CKRecord(recordType: "Wide", recordID: CKRecord.ID(recordName: "w", zoneID: zoneID))
        for n in 0..<12 { record["k\(n)"] = n }
        let saved = try #require(try await OpsTestKit.save([record], in: database).first)
        let mine = saved.copy() as! CKRecord
        let theirs = saved.copy() as! CKRecord
        theirs["k3"] = 300
        theirs["k11"] = nil
        theirs["z"] = "theirs"
        try await OpsTestKit.save([theirs], in: database)
        mine["k5"] = 500
        mine["k0"] = nil
        mine["a"] = "mine"
        let results = await AdversarialKit.modify(database, saving: [mine], policy: .changedKeys)
        #expect(OpsTestKit.code(results.saves[mine.recordID]) == nil)
        let merged = try await database.record(for: record.recordID)
        var expected = (1..<11).map { "k\($0)" } + ["a", "z"]
        expected.sort()
        #expect(merged.allKeys() == expected)
        #expect(merged["k3"] as? Int == 300)
        #expect(merged["k5"] as? Int == 500)
        #expect(merged["z"] as? String == "theirs")
        #expect(merged["a"] as? String == "mine")
    }

    /// A table built from a list of assignments at once is the one the subscript builds
    /// setting them in turn: later values win, `nil` removes, equivalent spellings are one
    /// field, ASCII names sorted; on both sides of the size where it stops assigning in turn.
    @Test(arguments: [0, 5, 64, 65, 300, 5_000])
    func assigningAtOnceIsAssigningInTurn(count: Int) {
        var generator = SeededGenerator(seed: UInt64(count) &+ 7)
        let spellings = Self.equivalentSpellings.flatMap { $0 }
        for round in 0..<4 {
            var assignments: [(key: String, value: FieldValue?)] = []
            for n in 0..<count {
                let pick = Int(generator.next() % 100)
                let key: String
                switch round {
                case 0: key = "f\(generator.next() % UInt64(max(1, count)))"  // ASCII, repeats
                case 1: key = pick < 10 ? Self.oddNames[pick % Self.oddNames.count] : "f\(n)"
                case 2: key = pick < 10 ? spellings[pick % spellings.count] : "g\(count - n)"
                default: key = "h\(n)"  // ASCII, each once, in reverse order of names
                }
                assignments.append((key, pick < 15 ? nil : Self.value(n)))
            }
            if round == 3 { assignments.reverse() }
            var inTurn = FieldTable()
            for (key, value) in assignments { inTurn[key] = value }
            let atOnce = FieldTable(assigning: assignments)
            #expect(atOnce == inTurn, "round \(round) of \(count)")
            if round == 0 || round == 3 { #expect(atOnce.keys == inTurn.keys) }
            for key in inTurn.keys { #expect(atOnce[key] == inTurn[key]) }
        }
    }

    /// Changed keys keep the order keys were first changed in and each key once, past the
    /// size where a set answers instead of a scan; equivalent spellings are one key.
    @Test func changedKeysAreEachKeyOnceInFirstOrder() {
        var keys = ChangedKeys()
        var expected: [String] = []
        for n in (0..<100).reversed() {
            keys.insert("k\(n % 40)")
            if !expected.contains("k\(n % 40)") { expected.append("k\(n % 40)") }
        }
        keys.insert("\u{E9}")
        keys.insert("e\u{301}")
        expected.append("\u{E9}")
        #expect(keys.names == expected)
        keys.removeAll()
        #expect(keys.isEmpty)
        keys.insert("k1")
        keys.insert("k1")
        #expect(keys.names == ["k1"])
    }

    /// A value of each kind, chosen by `n`.
    static func value(_ n: Int) -> FieldValue {
        switch n % 8 {
        case 0: return .string("s\(n)")
        case 1: return .integer(Int64(n), .int32)
        case 2: return .double(Double(n) + 0.5, .double)
        case 3: return .date(Date(timeIntervalSinceReferenceDate: Double(n)))
        case 4: return .bytes(Data([UInt8(n % 256), 0, 1]))
        case 5:
            return .reference(
                ReferenceValue(recordName: "r\(n)", zoneName: "Z", ownerName: "owner", action: UInt8(n % 2)))
        case 6: return .list([.string("a\(n)"), .string("b")])
        default: return .list([.integer(Int64(n), .int64), .integer(1, .int64)])
        }
    }
}
