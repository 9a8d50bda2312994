import Foundation
import Stratus
import StratusSQLite
import Testing

@testable import StratusCLI

/// Adversarial checks of `stratus import` (review of the streaming import): exact round trips
/// of every field type through the export form, duplicate names far apart (last wins, held
/// back or not), a parent in another zone, invalid UTF-8 and odd line shapes.
@Suite("stratus import: review")
struct ImportReviewTests {
    let source = CKRecordZone.ID(zoneName: "Notes")
    let zone = CKRecordZone.ID(zoneName: "Copy")

    /// A store with the zones `Notes` and `Copy`.
    private func database() async throws -> (CKDatabase, SQLiteBackend) {
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
        let database = CKContainer(identifier: "iCloud.test", backend: backend).privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneID: zone))
        _ = try await database.save(CKRecordZone(zoneID: source))
        return (database, backend)
    }

    private func record(_ name: String, parent: String? = nil, version: Int64) -> CKRecord {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        if let parent { record.setParent(CKRecord.ID(recordName: parent, zoneID: zone)) }
        record["version"] = version
        return record
    }

    private func stored(_ name: String, in database: CKDatabase) async throws -> CKRecord {
        try await database.record(for: CKRecord.ID(recordName: name, zoneID: zone))
    }

    // MARK: Duplicate names far apart: the later line wins

    /// `x` waits for its parent `p`; a later line saves `x` again without a parent; then `p`
    /// comes. The later `x` must stay: the held-back earlier one may not be saved over it.
    @Test func aLaterLineWinsOverAnEarlierHeldBackOne() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database)
        try await importer.save([record("x", parent: "p", version: 1)])
        try await importer.save([record("x", version: 2)])
        try await importer.save([record("p", version: 1)])
        try await importer.finish()
        #expect(importer.failed == 0)
        let x = try await stored("x", in: database)
        #expect(x["version"] as? Int64 == 2)
        #expect(x.parent == nil)
    }

    /// The same, but the later `x` comes in the same request as the parent that releases the
    /// earlier one.
    @Test func aLaterLineInTheParentsRequestWins() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database)
        try await importer.save([record("x", parent: "p", version: 1)])
        try await importer.save([record("x", version: 2), record("p", version: 1)])
        try await importer.finish()
        let x = try await stored("x", in: database)
        #expect(x["version"] as? Int64 == 2)
    }

    /// `x` waits for `p` twice, from two lines in different requests: when `p` comes, one
    /// `x` (the later) is saved, and the import does not fail on "the same record twice".
    @Test func aNameHeldBackTwiceIsSavedOnceWithTheLaterLine() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database)
        try await importer.save([record("x", parent: "p", version: 1)])
        try await importer.save([record("x", parent: "p", version: 2)])
        try await importer.save([record("p", version: 1)])
        try await importer.finish()
        #expect(importer.failed == 0)
        #expect(importer.heldBack == 0)
        let x = try await stored("x", in: database)
        #expect(x["version"] as? Int64 == 2)
    }

    /// Held back under two different missing parents, the later line is the one kept: the
    /// end-of-input retry saves nothing stale, and reports the later line's failure only.
    @Test func aNameHeldBackUnderTwoParentsKeepsTheLaterLine() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database)
        try await importer.save([record("x", parent: "b", version: 1)])
        try await importer.save([record("x", parent: "a", version: 2)])
        #expect(importer.heldBack == 1)
        try await importer.save([record("a", version: 1), record("b", version: 1)])
        try await importer.finish()
        let x = try await stored("x", in: database)
        #expect(x["version"] as? Int64 == 2)
        #expect(x.parent?.recordID.recordName == "a")
    }

    // MARK: A parent in another zone

    /// A parent in another zone can never be saved with the child: the child fails at once
    /// (`invalidArguments`), is reported, and is not held back.
    @Test func aParentInAnotherZoneFailsAtOnceAndIsNotHeldBack() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let line = #"""
            {"recordName": "c", "recordType": "T", "zoneName": "Notes", "ownerName": "__defaultOwner__", \#
            "parent": {"type": "REFERENCE", "value": ["p", "Elsewhere", "__defaultOwner__", "0"]}, "fields": {}}
            """#
        let records = try RecordLines(into: zone).decode([InputLine(number: 1, bytes: Data(line.utf8))])
        #expect(records.first?.parent?.recordID.zoneID.zoneName == "Elsewhere")
        let importer = RecordImporter(database: database)
        try await importer.save(records)
        #expect(importer.heldBack == 0)
        #expect(importer.failed == 1)
        try await importer.finish()
        #expect(importer.saved == 0)
    }

    // MARK: Lines

    /// Invalid UTF-8 inside a string is a bad line, not a record whose text was repaired.
    @Test func invalidUTF8IsABadLine() {
        var bytes = Data(
            #"{"recordName": "a", "recordType": "T", "zoneName": "Z", "fields": {"s": {"type": "STRING", "value": "ok"#
                .utf8)
        bytes += [0xFF, 0xFE, 0xC3]
        bytes += Data(#""}}}"#.utf8)
        let error = #expect(throws: CLIError.self) {
            try RecordLines(into: zone).decode([InputLine(number: 7, bytes: bytes)])
        }
        #expect(error?.exitCode == CLIError.dataError)
        #expect(error?.message.hasPrefix("line 7 is not a record") == true, "\(error?.message ?? "")")
    }

    /// CRLF, a last line without a line break, a line of 1 MB straddling chunks, blank lines
    /// of spaces and carriage returns, an empty input and an input of blank lines only.
    @Test func lineShapes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-review-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func lines(_ data: Data) throws -> [InputLine] {
            let file = directory.appendingPathComponent("\(UUID()).jsonl").path
            #expect(FileManager.default.createFile(atPath: file, contents: data))
            let input = try InputLines(path: file)
            var all: [InputLine] = []
            while true {
                let some = try input.next(3)
                if some.isEmpty { break }
                all += some
            }
            #expect(input.bytesRead == data.count)
            return all
        }
        #expect(try lines(Data()).isEmpty)
        #expect(try lines(Data("\n\r\n  \n\t\r\n\r".utf8)).isEmpty)
        let mega = String(repeating: "y", count: 1 << 20)
        let got = try lines(Data("a\r\n\(mega)\r\n\r\nb".utf8))
        #expect(got.map(\.number) == [1, 2, 4])
        #expect(got.map(\.bytes.count) == [1, 1 << 20, 1])
        #expect(got.last?.bytes == Data("b".utf8))
    }

    // MARK: Exact round trip of every field type

    /// Every field type, saved, exported as `stratus export` writes it, imported as `stratus
    /// import` reads it into another zone, and fetched again: every value is identical, to the
    /// bit for numbers and dates.
    @Test func everyFieldTypeRoundTripsExactly() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-review-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let assetFile = directory.appendingPathComponent("asset.bin")
        try Data([0, 1, 2, 255]).write(to: assetFile)

        let parent = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "parent", zoneID: source))
        let child = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "child-1", zoneID: source))
        child.setParent(parent.recordID)
        // Dates that are not whole milliseconds, as `Date()` gives them.
        let when = Date(timeIntervalSinceReferenceDate: 817_123_456.123_456_7)
        let early = Date(timeIntervalSinceReferenceDate: 0.1)
        child["text"] = "line 1\nline 2\r\n\u{0}nul é 🙂 \"quoted\" \\ /"
        child["empty"] = ""
        child["big"] = Int64.max
        child["small"] = Int64.min
        child["ratio"] = 0.1 + 0.2
        child["tiny"] = Double.leastNonzeroMagnitude
        child["negativeZero"] = -0.0
        child["when"] = when
        child["early"] = early
        child["bytes"] = Data([0, 0xFF, 0x0A, 0x0D])
        child["place"] = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 48.858_370_1, longitude: 2.294_481_3), altitude: 35.5,
            horizontalAccuracy: 3.25, verticalAccuracy: 1.5, course: 90.125, speed: 1.75, timestamp: when)
        child["link"] = CKRecord.Reference(recordID: parent.recordID, action: .deleteSelf)
        child["strings"] = ["a\nb", "", "🙂"]
        child["dates"] = [when, early]
        child["numbers"] = [Int64.max, -1, 0]
        child["asset"] = CKAsset(fileURL: assetFile)
        _ = try await database.modifyRecords(saving: [parent, child], deleting: [], atomically: true)

        let originals = try await database.records(for: [parent.recordID, child.recordID]).mapValues { try $0.get() }
        // Export order is the change order; put the child first so it is held back.
        let text = try [child.recordID, parent.recordID].map { try RecordText.json(originals[$0]!) }
        for line in text { #expect(!line.contains("\n")) }
        let lines = text.enumerated().map { InputLine(number: $0.offset + 1, bytes: Data($0.element.utf8)) }
        let importer = RecordImporter(database: database)
        try await importer.save(try RecordLines(into: zone).decode(lines))
        try await importer.finish()
        #expect(importer.saved == 2)
        #expect(importer.failed == 0)

        let original = try #require(originals[child.recordID])
        let copy = try await stored(child.recordID.recordName, in: database)
        #expect(copy.parent?.recordID == CKRecord.ID(recordName: "parent", zoneID: zone))
        #expect(Set(copy.allKeys()) == Set(original.allKeys()))
        for key in ["text", "empty"] { #expect(copy[key] as? String == original[key] as? String, "\(key)") }
        for key in ["big", "small"] { #expect(copy[key] as? Int64 == original[key] as? Int64, "\(key)") }
        for key in ["ratio", "tiny", "negativeZero"] {
            #expect((copy[key] as? Double)?.bitPattern == (original[key] as? Double)?.bitPattern, "\(key)")
        }
        for key in ["when", "early"] {
            let a = (original[key] as? Date)?.timeIntervalSinceReferenceDate
            let b = (copy[key] as? Date)?.timeIntervalSinceReferenceDate
            #expect(a?.bitPattern == b?.bitPattern, "\(key): \(String(describing: a)) became \(String(describing: b))")
        }
        #expect(
            (copy["dates"] as? [Date])?.map(\.timeIntervalSinceReferenceDate.bitPattern)
                == (original["dates"] as? [Date])?.map(\.timeIntervalSinceReferenceDate.bitPattern))
        #expect(copy["bytes"] as? Data == original["bytes"] as? Data)
        let a = try #require(original["place"] as? CLLocation)
        let b = try #require(copy["place"] as? CLLocation)
        #expect(
            [
                a.coordinate.latitude, a.coordinate.longitude, a.altitude, a.horizontalAccuracy, a.verticalAccuracy,
                a.course, a.speed, a.timestamp.timeIntervalSinceReferenceDate,
            ].map(\.bitPattern)
                == [
                    b.coordinate.latitude, b.coordinate.longitude, b.altitude, b.horizontalAccuracy,
                    b.verticalAccuracy, b.course, b.speed, b.timestamp.timeIntervalSinceReferenceDate,
                ].map(\.bitPattern))
        let link = try #require(copy["link"] as? CKRecord.Reference)
        #expect(link.recordID == CKRecord.ID(recordName: "parent", zoneID: zone))
        #expect(link.action == .deleteSelf)
        #expect(copy["strings"] as? [String] == original["strings"] as? [String])
        #expect(copy["numbers"] as? [Int64] == original["numbers"] as? [Int64])
        #expect((copy["asset"] as? CKAsset) != nil)
    }

    /// Dates as `Date()` gives them today (microseconds, not whole milliseconds) go through
    /// the export form unchanged: about half of them lost their last bit through seconds since
    /// 1970 as a `Double`, before the form carried `since2001`.
    @Test func todaysDatesRoundTripExactly() throws {
        var generator = SystemRandomNumberGenerator()
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "d", zoneID: source))
        let dates = (0..<200).map { _ in
            Date(timeIntervalSinceReferenceDate: Double.random(in: 700_000_000...900_000_000, using: &generator))
        }
        record["dates"] = dates
        record["first"] = dates[0]
        let line = try RecordText.json(record)
        let copy = try #require(
            try RecordLines(into: zone).decode([InputLine(number: 1, bytes: Data(line.utf8))]).first)
        let copied = try #require(copy["dates"] as? [Date])
        let changed = zip(dates, copied).filter {
            $0.timeIntervalSinceReferenceDate != $1.timeIntervalSinceReferenceDate
        }
        let example = changed.first.map {
            "\($0.0.timeIntervalSinceReferenceDate) → \($0.1.timeIntervalSinceReferenceDate)"
        }
        #expect(changed.isEmpty, "\(changed.count) of 200 dates changed, such as \(example ?? "")")
    }

    /// A double that is not a number or infinite is stored by the engine; the export must not
    /// turn its record into an empty line that the import then skips in silence.
    @Test func aNonFiniteDoubleIsNotExportedAsABlankLine() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "odd", zoneID: source))
        record["nan"] = Double.nan
        record["inf"] = -Double.infinity
        _ = try await database.modifyRecords(saving: [record], deleting: [], atomically: true)
        let stored = try await database.record(for: record.recordID)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-review-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.jsonl")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        let outcome = await Result {
            try await ExportCommand.export(
                source, of: database, to: handle, progress: TransferProgress(verb: "exported"))
        }
        try handle.close()
        let written = try String(contentsOf: file, encoding: .utf8)
        switch outcome {
        case .success(let count):
            // Exported: then as a real line that imports back to the same values.
            #expect(count == 1)
            let line = try #require(written.split(separator: "\n").first.map(String.init))
            #expect(!line.trimmingCharacters(in: .whitespaces).isEmpty, "the record was exported as a blank line")
            let copy = try #require(
                try RecordLines(into: zone).decode([InputLine(number: 1, bytes: Data(line.utf8))]).first)
            #expect((copy["nan"] as? Double)?.isNaN == true)
            #expect(copy["inf"] as? Double == -Double.infinity)
            #expect((stored["nan"] as? Double)?.isNaN == true)
        case .failure:
            // Refused: then loudly, with nothing blank written.
            #expect(!written.contains("\n\n") && written != "\n")
        }
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
