import Foundation
import Stratus
import StratusInMemory
import StratusWebServices
import Testing

@testable import StratusServer

/// JSON change answers written straight from the change log's entry bytes
/// (`fetchRawZoneChanges`, `WSChangesAnswerWriter.write(_: RawZoneChangesBatch, …)`): the bytes
/// must be those written from the decoded entries (`fetchStoredZoneChanges`) — for every field
/// kind but assets (a batch with an asset is read decoded), strings that need escaping or are
/// not ASCII, parents, tombstones,
/// callers, `numbersAsStrings`, whole and in pieces.
@Suite("Change answers written from entry bytes")
struct RawChangeJSONWritingTests {
    static let zoneID = StoredChangeWritingTests.zoneID

    @Test func entryBytesAreWrittenAsTheirDecodedRecords() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let caller = Caller(userRecordName: "_alice", role: .user)
        let namespace = Namespace(container: "iCloud.com.example.raw", environment: .development, owner: "_alice")
        let database = try engine.database(namespace: namespace, scope: .private, caller: caller)
        _ = try database.modifyZones(saving: [CKRecordZone(zoneID: Self.zoneID)], deleting: [])
        let records = try Self.records()
        try database.createAndDelete(records, deleting: [])
        let middle = try database.fetchZoneChanges(Self.zoneID, since: nil, limit: 100, desiredKeys: nil).token
        try database.createAndDelete([], deleting: [records[3].recordID])

        let translators = [
            WSRecordTranslator(callerRecordName: "_alice", assets: nil),
            WSRecordTranslator(callerRecordName: nil, assets: nil), WSRecordTranslator(),
        ]
        var compared = 0
        for token in [nil, middle] {
            let stored = try database.fetchStoredZoneChanges(Self.zoneID, since: token, limit: 100, desiredKeys: nil)
            let raw = try database.fetchRawZoneChanges(Self.zoneID, since: token, limit: 100)
            #expect(raw.changes.count == stored.changes.count)
            let holdsAsset = raw.changes.contains { $0.containsAsset }
            #expect(!holdsAsset)
            for translator in translators {
                for numbersAsStrings in [false, true] {
                    compared += try compare(stored, raw, translator, numbersAsStrings)
                }
            }
        }
        #expect(compared == 3 * 2 * (3 + 1), "three live records, then the tombstone, compared")
    }

    /// Compares the two writers' answers, whole with and without the zone named and in pieces
    /// of one change; the number of changes compared.
    private func compare(
        _ stored: StoredZoneChangesBatch, _ raw: RawZoneChangesBatch, _ translator: WSRecordTranslator,
        _ numbersAsStrings: Bool
    ) throws -> Int {
        let token = SyncTokenText.encode(stored.token.data)
        for namingZone in [false, true] {
            var wanted = WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: 0)
            wanted.write(stored, of: Self.zoneID, syncToken: token, namingZone: namingZone)
            var written = WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: 0)
            written.begin(raw)
            try written.writeChanges(raw.changes[...], of: Self.zoneID)
            written.end(of: Self.zoneID, syncToken: token, namingZone: namingZone)
            #expect(String(decoding: written.bytes, as: UTF8.self) == String(decoding: wanted.bytes, as: UTF8.self))
            #expect(wanted.bytes.count > 200 * stored.changes.count || stored.changes.count == 1, "not vacuous")
        }
        var pieces = WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: 0)
        var joined: [UInt8] = []
        pieces.begin(raw)
        for index in raw.changes.indices {
            try pieces.writeChanges(raw.changes[index...index], of: Self.zoneID)
            joined += pieces.bytes
            pieces.removeAllBytes()
        }
        pieces.end(of: Self.zoneID, syncToken: token, namingZone: false)
        joined += pieces.bytes
        var whole = WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: 0)
        whole.write(stored, of: Self.zoneID, syncToken: token, namingZone: false)
        #expect(joined == whole.bytes)
        return stored.changes.count
    }

    /// Four records: every field kind but assets (with a parent); non-ASCII field names and
    /// string values (field names are ASCII: CloudKit refuses others); a plain ASCII one.
    static func records() throws -> [CKRecord] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("raw-json-\(UUID()).bin")
        try Data("unused".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func record(_ name: String, _ type: String) -> CKRecord {
            CKRecord(recordType: type, recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        }
        let full = record("full", "Item")
        StoredChangeWritingTests.everyField(full, asset: file)
        full["asset"] = nil
        full["assets"] = nil
        let accents = record("accents", "Note")
        accents["season"] = "été"
        accents["title"] = "naïve café \"quoted\" \\ back"
        accents["emoji"] = ["🎉", "x"]
        let escapes = record("plain", "Note")  // the parent of `full`
        escapes["title"] = "tab\there, nul \u{0}, bell \u{7}, del \u{7F}, line\r\n"
        escapes["count"] = UInt64(1) << 40
        escapes["when"] = Date(timeIntervalSinceReferenceDate: -1.0005)
        let doomed = record("doomed", "Gone")
        doomed["title"] = "short"
        return [full, accents, escapes, doomed]
    }
}
