import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import StratusWebServices
import Testing

/// `records/lookup` and `records/query` answers in the binary record encoding (decision
/// 0018.10), raw over loopback against a real `stratusd`: each answer read from its bytes is
/// the record the JSON answer to the same request gives — every field type, `desiredKeys`,
/// per-item errors, continuation markers — and whatever the encoding cannot carry is JSON.
@Suite("Remote containers: lookups and queries in the binary record encoding")
struct RecordEncodingReadTests {
    let zone = CKRecordZone.ID(zoneName: "Encoded")
    let binary = StratusRecordEncoding.mediaType

    /// A started fixture, its private database holding the zone, and the JSON translator of
    /// its user (zone owners as the server writes them); `body` runs, then the server stops.
    func withFixture(
        _ body: (RecordEncodingFixture, CKDatabase, WSRecordTranslator) async throws -> Void
    ) async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: true)
        do {
            let container = try fixture.container()
            let database = container.privateCloudDatabase
            _ = try await database.save(CKRecordZone(zoneID: zone))
            let user = try await container.userRecordID().recordName
            try await body(fixture, database, WSRecordTranslator(callerRecordName: user))
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    /// `record`'s system fields and fields, for comparing records read either way.
    func contents(_ record: CKRecord) -> String {
        let (names, values) = record.storedFields
        let fields = zip(names, values).sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }
        return [
            record.recordID.recordName, record.recordID.zoneID.zoneName, record.recordID.zoneID.ownerName,
            record.recordType, record.recordChangeTag ?? "-", "\(record.creationDate?.timeIntervalSince1970 ?? 0)",
            "\(record.modificationDate?.timeIntervalSince1970 ?? 0)", record.creatorUserRecordID?.recordName ?? "-",
            record.lastModifiedUserRecordID?.recordName ?? "-", record.parent?.recordID.recordName ?? "-",
        ].joined(separator: "|") + "|" + fields.joined(separator: ";")
    }

    /// Each item of a JSON `records/lookup` or `records/query` answer: its record's contents, or
    /// `error:<serverErrorCode>`.
    func jsonItems(_ body: [UInt8], _ translator: WSRecordTranslator) throws -> [String] {
        guard case .array(let items) = try JSONValue.parse(body)["records"] else { return ["no records"] }
        return try items.map { item in
            if case .string(let code) = item["serverErrorCode"] { return "error:\(code)" }
            return contents(try translator.serverRecord(from: item, defaultZone: zone))
        }
    }

    /// The items of a binary `records/lookup` answer to `count` names, as ``jsonItems(_:_:)``.
    func binaryLookupItems(_ body: [UInt8], count: Int) throws -> [String] {
        try StratusRecordEncoding.readLookupAnswer(body, zoneID: zone, count: count).map { item in
            switch item {
            case .saved(let record): return contents(record)
            case .error(let json):
                guard case .string(let code) = json["serverErrorCode"] else { return "error without a code" }
                return "error:\(code)"
            case .deleted: return "deleted"
            }
        }
    }

    /// Saves `RecordEncodingTests`' record of every field type as `all`, and its parent.
    func saveEveryType(_ database: CKDatabase) async throws {
        let target = CKRecord(recordType: "Every", recordID: CKRecord.ID(recordName: "target", zoneID: zone))
        let all = RecordEncodingTests().everyType("all")
        _ = try await database.modifyRecords(saving: [target, all], deleting: [])
    }

    @Test func aLookupAnswerReadsAsTheJSONAnswerWithDesiredKeysAndMissingRecords() async throws {
        try await withFixture { fixture, database, translator in
            try await saveEveryType(database)
            let names = #"[{"recordName":"all"},{"recordName":"nowhere"},{"recordName":"target"}]"#
            for keys in ["", #","desiredKeys":["string","int8","date","location","absent"]"#, #","desiredKeys":[]"#] {
                let request = Array(#"{"zoneID":{"zoneName":"Encoded"},"records":\#(names)\#(keys)}"#.utf8)
                let json = try await fixture.post("records/lookup", request, contentType: "application/json")
                let bytes = try await fixture.post(
                    "records/lookup", request, contentType: "application/json", accept: binary)
                #expect(json.status == 200 && bytes.status == 200)
                #expect(json.headers["content-type"]?.hasPrefix("application/json") == true)
                #expect(bytes.headers["content-type"] == binary, "\(keys)")
                let fromJSON = try jsonItems(json.body, translator)
                let fromBytes = try binaryLookupItems(bytes.body, count: 3)
                #expect(fromBytes == fromJSON, "\(keys)")
                #expect(fromBytes[1] == "error:NOT_FOUND")
                #expect(fromBytes[0] != fromBytes[2])
            }
            // Every field is there without desiredKeys; only the asked ones with them.
            let record = try await database.record(for: CKRecord.ID(recordName: "all", zoneID: zone))
            #expect(Set(record.allKeys()) == Set(RecordEncodingTests().everyType("all").allKeys()))
            let some = try await database.records(
                for: [record.recordID], desiredKeys: ["string", "int8"])[record.recordID]?.get()
            #expect(Set(try #require(some).allKeys()) == ["string", "int8"])
            #expect(some?["int8"] as? Int8 == -8)
        }
    }

    /// Saves `count` notes in `zoneID`, named `n00`…, their `index` and `title`.
    func saveNotes(_ count: Int, in zoneID: CKRecordZone.ID, _ database: CKDatabase) async throws {
        let notes = (0..<count).map { index in
            let note = CKRecord(
                recordType: "Note",
                recordID: CKRecord.ID(recordName: String(format: "n%02d", index), zoneID: zoneID))
            note["index"] = Int64(index)
            note["title"] = "note \(index)"
            note["when"] = Date(timeIntervalSince1970: 1_700_000_000.0004 + Double(index))
            return note
        }
        _ = try await database.modifyRecords(saving: notes, deleting: [])
    }

    /// Every page of the query `body` (JSON, without its closing brace) in one encoding: the
    /// pages' records as ``contents(_:)`` and the continuation markers, to the last page.
    func queryPages(_ fixture: RecordEncodingFixture, _ body: String, binary: Bool, _ translator: WSRecordTranslator)
        async throws -> (pages: [[String]], markers: [Data?])
    {
        var pages: [[String]] = []
        var markers: [Data?] = []
        var marker: Data?
        repeat {
            let continued = marker.map { #","continuationMarker":"\#(SyncTokenText.encode($0))""# } ?? ""
            let answer = try await fixture.post(
                "records/query", Array((body + continued + "}").utf8), contentType: "application/json",
                accept: binary ? self.binary : nil)
            #expect(answer.status == 200)
            #expect((answer.headers["content-type"] == self.binary) == binary)
            if binary {
                let page = try StratusRecordEncoding.readQueryAnswer(answer.body, zoneID: translator.zoneID(from:))
                pages.append(page.records.map(contents))
                marker = page.cursor
            } else {
                let json = try JSONValue.parse(answer.body)
                pages.append(try jsonItems(answer.body, translator))
                marker = json["continuationMarker"].flatMap { value in
                    if case .string(let text) = value { return SyncTokenText.data(text) }
                    return nil
                }
            }
            markers.append(marker)
        } while marker != nil && pages.count < 20
        return (pages, markers)
    }

    @Test func queryPagesReadAsTheJSONPagesToTheLastContinuationMarker() async throws {
        try await withFixture { fixture, database, translator in
            let other = CKRecordZone.ID(zoneName: "Other")
            _ = try await database.save(CKRecordZone(zoneID: other))
            try await saveNotes(7, in: zone, database)
            try await saveNotes(3, in: other, database)
            let shapes = [
                #"{"query":{"recordType":"Note"},"zoneID":{"zoneName":"Encoded"},"resultsLimit":3"#,
                #"{"query":{"recordType":"Note"},"zoneID":{"zoneName":"Encoded"},"resultsLimit":2,"desiredKeys":["title"]"#,
                #"{"query":{"recordType":"Note"},"zoneWide":true,"resultsLimit":4"#,
                #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"index","comparator":"GREATER_THAN","fieldValue":{"value":4}}]},"zoneID":{"zoneName":"Encoded"}"#,
            ]
            for shape in shapes {
                let json = try await queryPages(fixture, shape, binary: false, translator)
                let bytes = try await queryPages(fixture, shape, binary: true, translator)
                #expect(bytes.pages == json.pages, "\(shape)")
                #expect(bytes.markers == json.markers, "\(shape)")
                #expect(bytes.markers.last == .some(nil), "\(shape): paged to the end")
            }
            // The zone-wide query answered every note of both zones, each in its own zone.
            let wide = try await queryPages(fixture, shapes[2], binary: true, translator)
            let all = wide.pages.joined()
            #expect(all.count == 10)
            #expect(all.filter { $0.contains("|Other|") }.count == 3)
            // desiredKeys: the title alone.
            let titles = try await queryPages(fixture, shapes[1], binary: true, translator)
            #expect(titles.pages.count == 4)
            #expect(titles.pages.joined().allSatisfy { $0.split(separator: "|").last?.hasPrefix("title=") == true })
            #expect(titles.pages.joined().allSatisfy { !$0.contains(";") })
        }
    }

    @Test func answersAreJSONUnlessTheEncodingIsAskedForAndCanCarryThem() async throws {
        try await withFixture { fixture, database, _ in
            try await saveNotes(2, in: zone, database)
            let lookup = Array(#"{"zoneID":{"zoneName":"Encoded"},"records":[{"recordName":"n00"}]}"#.utf8)
            let query = Array(#"{"query":{"recordType":"Note"},"zoneID":{"zoneName":"Encoded"}}"#.utf8)
            let strings = Array(
                #"{"zoneID":{"zoneName":"Encoded"},"records":[{"recordName":"n00"}],"numbersAsStrings":true}"#.utf8)
            let asked: [(String, [UInt8], String?)] = [
                ("records/lookup", lookup, nil), ("records/lookup", lookup, "application/json"),
                ("records/lookup", lookup, "text/plain"), ("records/query", query, "application/json"),
                ("records/query", query, nil), ("records/lookup", strings, binary),
            ]
            for (operation, body, accept) in asked {
                let answer = try await fixture.post(operation, body, contentType: "application/json", accept: accept)
                #expect(answer.status == 200, "\(operation) \(accept ?? "-")")
                #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true)
                #expect((try? JSONValue.parse(answer.body)) != nil)
            }
            // numbersAsStrings is JSON's matter: the INT64 is a string there.
            let answer = try await fixture.post(
                "records/lookup", strings, contentType: "application/json", accept: binary)
            let json = try JSONValue.parse(answer.body)
            guard case .array(let records) = json["records"] else { throw CKError(.internalError) }
            #expect(records.first?["fields"]?["index"]?["value"] == .string("0"))
            // A request body in the encoding is not JSON: 400, the usual JSON error.
            let refused = try await fixture.post("records/lookup", [1, 0], contentType: binary, accept: binary)
            #expect(refused.status == 400)
            #expect(try JSONValue.parse(refused.body)["serverErrorCode"] == .string("BAD_REQUEST"))
        }
    }

    @Test func anAnswerHoldingAnAssetIsJSONAndOneWithoutItsFieldIsNot() async throws {
        try await withFixture { fixture, database, _ in
            let directory = try TemporaryDirectory(prefix: "encoding-asset")
            defer { try? directory.remove() }
            let file = directory.appending("photo.bin")
            try Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0) }).write(to: file)
            let photo = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "photo", zoneID: zone))
            photo["image"] = CKAsset(fileURL: file)
            photo["title"] = "with an asset"
            _ = try await database.save(photo)
            try await saveNotes(1, in: zone, database)
            let cases: [(String, String, Bool)] = [
                (
                    "records/lookup",
                    #"{"zoneID":{"zoneName":"Encoded"},"records":[{"recordName":"n00"},{"recordName":"photo"}]"#,
                    false
                ),
                (
                    "records/lookup",
                    #"{"zoneID":{"zoneName":"Encoded"},"records":[{"recordName":"n00"},{"recordName":"photo"}],"desiredKeys":["title"]"#,
                    true
                ),
                ("records/query", #"{"query":{"recordType":"Note"},"zoneID":{"zoneName":"Encoded"}"#, false),
                (
                    "records/query",
                    #"{"query":{"recordType":"Note"},"zoneID":{"zoneName":"Encoded"},"desiredKeys":["title","index"]"#,
                    true
                ),
            ]
            for (operation, body, isBinary) in cases {
                let answer = try await fixture.post(
                    operation, Array((body + "}").utf8), contentType: "application/json", accept: binary)
                #expect(answer.status == 200)
                #expect((answer.headers["content-type"] == binary) == isBinary, "\(operation) \(body)")
                if !isBinary {
                    // The JSON answer carries the asset's download URL.
                    guard case .array(let items) = try JSONValue.parse(answer.body)["records"] else {
                        throw CKError(.internalError)
                    }
                    #expect(items.count == 2)
                    #expect(String(decoding: answer.body, as: UTF8.self).contains("downloadURL"))
                }
            }
            // Through the remote container: the asset arrives, its content whole.
            let fetched = try await database.record(for: photo.recordID)
            let local = try #require((fetched["image"] as? CKAsset)?.fileURL)
            #expect(try Data(contentsOf: local).count == 5_000)
        }
    }
}
