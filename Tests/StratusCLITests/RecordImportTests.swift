import Foundation
import Stratus
import StratusSQLite
import Testing

@testable import StratusCLI

@Suite("stratus import: decoding and saving")
struct RecordImportTests {
    let zone = CKRecordZone.ID(zoneName: "Copy")

    private func line(_ number: Int, _ text: String) -> InputLine {
        InputLine(number: number, bytes: Data(text.utf8))
    }

    @Test func decodingMovesTheRecordAndItsReferencesIntoTheZone() throws {
        let text = """
            {"recordName": "c", "recordType": "Note", "zoneName": "Notes", "ownerName": "__defaultOwner__", \
            "recordChangeTag": "7", "created": 1, "modified": 2, "createdBy": "u", "modifiedBy": "u", \
            "parent": {"type": "REFERENCE", "value": ["p", "Notes", "__defaultOwner__", "0"]}, \
            "fields": {"small": {"type": "INT64", "kind": 1, "value": -5}, \
            "owner": {"type": "REFERENCE", "value": ["p", "Notes", "__defaultOwner__", "1"]}, \
            "elsewhere": {"type": "REFERENCE", "value": ["x", "Other", "__defaultOwner__", "0"]}, \
            "links": {"type": "LIST", "value": [{"type": "REFERENCE", "value": ["q", "Notes", "__defaultOwner__", "0"]}]}}}
            """
        let records = try RecordLines(into: zone).decode([line(3, text)])
        let record = try #require(records.first)
        #expect(record.recordID == CKRecord.ID(recordName: "c", zoneID: zone))
        #expect(record.recordChangeTag == nil)
        #expect(record.creationDate == nil)
        #expect(record.parent?.recordID == CKRecord.ID(recordName: "p", zoneID: zone))
        #expect(record["small"] as? Int8 == -5)
        let owner = try #require(record["owner"] as? CKRecord.Reference)
        #expect(owner.recordID == CKRecord.ID(recordName: "p", zoneID: zone))
        #expect(owner.action == .deleteSelf)
        #expect((record["elsewhere"] as? CKRecord.Reference)?.recordID.zoneID.zoneName == "Other")
        #expect((record["links"] as? [CKRecord.Reference])?.first?.recordID.zoneID == zone)
    }

    @Test func aBadLineIsNamedWithWhatIsWrong() {
        let lines = [
            line(1, #"{"recordName": "a", "recordType": "T", "zoneName": "Z", "fields": {}}"#),
            line(
                4,
                #"{"recordName": "b", "recordType": "T", "zoneName": "Z", "fields": {"f": {"type": "NOPE", "value": 1}}}"#
            ),
        ]
        let error = #expect(throws: CLIError.self) { try RecordLines(into: zone).decode(lines) }
        #expect(error?.exitCode == CLIError.dataError)
        #expect(error?.message.hasPrefix("line 4 is not a record as `stratus export` writes it: ") == true)
        #expect(error?.message.contains("unknown field type NOPE") == true, "\(error?.message ?? "")")
    }

    @Test func inputLinesAreReadInChunksWithTheirNumbers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-lines-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Longer than one 256 KiB chunk, blank lines and CRLF included, no final line break.
        let long = String(repeating: "x", count: 300_000)
        let file = directory.appendingPathComponent("in.jsonl").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("a\n\n  \t\nb\r\n\(long)\n c ".utf8)))
        let lines = try InputLines(path: file)
        #expect(lines.size == 300_014)
        let first = try lines.next(2)
        #expect(first.map(\.number) == [1, 4])
        #expect(first.map { String(decoding: $0.bytes, as: UTF8.self) } == ["a", "b"])
        let rest = try lines.next(10)
        #expect(rest.map(\.number) == [5, 6])
        #expect(rest.first?.bytes.count == 300_000)
        #expect(rest.last.map { String(decoding: $0.bytes, as: UTF8.self) } == "c")
        #expect(try lines.next(10).isEmpty)
        #expect(lines.bytesRead == 300_014)
    }

    /// A store with the zone `Copy`, for the importer.
    private func database() async throws -> (CKDatabase, SQLiteBackend) {
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
        let database = CKContainer(identifier: "iCloud.test", backend: backend).privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneID: zone))
        return (database, backend)
    }

    private func record(_ name: String, parent: String? = nil) -> CKRecord {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        if let parent { record.setParent(CKRecord.ID(recordName: parent, zoneID: zone)) }
        return record
    }

    @Test func childrenWaitForParentsThatComeInLaterRequests() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database)
        try await importer.save([record("grandchild", parent: "child"), record("other")])
        #expect(importer.saved == 1)
        #expect(importer.heldBack == 1)
        try await importer.save([record("child", parent: "parent")])
        #expect(importer.heldBack == 2)
        try await importer.save([record("parent")])
        #expect(importer.saved == 4)
        #expect(importer.heldBack == 0)
        try await importer.finish()
        #expect(importer.failed == 0)
        let grandchild = try await database.record(for: CKRecord.ID(recordName: "grandchild", zoneID: zone))
        #expect(grandchild.parent?.recordID.recordName == "child")
    }

    @Test func aCycleAcrossRequestsIsSavedAtTheEndAndAMissingParentFails() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database)
        try await importer.save([record("a", parent: "b")])
        try await importer.save([record("b", parent: "a")])
        try await importer.save([record("orphan", parent: "nowhere")])
        #expect(importer.heldBack == 3)
        try await importer.finish()
        #expect(importer.saved == 2)
        #expect(importer.failed == 1)
        let b = try await database.record(for: CKRecord.ID(recordName: "b", zoneID: zone))
        #expect(b.parent?.recordID.recordName == "a")
    }

    @Test func heldBackRecordsAreBounded() async throws {
        let (database, backend) = try await database()
        defer { try? backend.close() }
        let importer = RecordImporter(database: database, limit: 2)
        try await importer.save([record("x", parent: "p1"), record("y", parent: "p2")])
        let error = await #expect(throws: CLIError.self) {
            try await importer.save([record("z", parent: "p3"), record("kept")])
        }
        #expect(error?.message.hasPrefix("more than 2 records wait for a parent") == true)
        #expect(error?.message.contains("; 1 record was imported (it stays saved). Put parents before") == true)
    }

    @Test func summaryTextAndJSON() throws {
        let summary = TransferSummary(verb: "imported", records: 300_000, zone: "Notes", seconds: 12.5)
        #expect(summary.text == "imported 300,000 records into zone Notes in 12.5 s (24,000 records/s)")
        let json = try #require(try StratusCLITests.json(Output.jsonLine(summary)) as? [String: Any])
        #expect(json["imported"] as? Int == 300_000)
        #expect(json["zone"] as? String == "Notes")
        #expect(json["seconds"] as? Double == 12.5)
        #expect(json["recordsPerSecond"] as? Double == 24_000)
        #expect(
            TransferProgress.text(verb: "exported", records: 1500, seconds: 2, fraction: 0.5)
                == "[###############...............]  50%  1,500 records exported  750/s")
    }
}
