import Foundation
import Stratus
import StratusInMemory
import StratusWebServices
import Testing

@testable import StratusServer

/// The change answers write each record straight from its stored change-log entry
/// (`fetchStoredZoneChanges`, `WSChangesAnswerWriter`): the bytes must be those of the
/// `CKRecord`s of `fetchZoneChanges` written the general way, for every field type,
/// `desiredKeys`, `numbersAsStrings`, tombstones, callers, with and without the zone named.
@Suite("Change answers written from stored entries")
struct StoredChangeWritingTests {
    static let zoneID = CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName)

    /// Asset dictionaries that name the content, so that a dropped or swapped asset shows.
    struct NamingAssets: WSAssetCoding {
        func asset(from value: JSONValue) throws(WSValueProblem) -> CKAsset {
            CKAsset(stagedContentID: "x", size: 1)
        }
        func dictionary(for asset: CKAsset) -> JSONValue? {
            asset.contentID.map { .object(["downloadURL": .string("https://assets.test/" + $0)]) }
        }
    }

    /// Every kind of field a record can hold, names in mixed case, and strings that need escaping.
    static func everyField(_ record: CKRecord, asset: URL) {
        record["title"] = "Hello \"world\"\n\u{1}é 🎉"
        record["int"] = Int64.min
        record["small"] = Int8(-5)
        record["unsigned"] = UInt32.max
        record["flag"] = true
        record["double"] = 0.1
        record["float"] = Float(0.1)
        record["nan"] = Double.nan
        record["date"] = Date(timeIntervalSince1970: 1_700_000_000.1236)
        record["bytes"] = Data([0, 1, 2, 255])
        let other = CKRecord.ID(recordName: "other", zoneID: zoneID)
        record["ref"] = CKRecord.Reference(recordID: other, action: .deleteSelf)
        record["location"] = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 48.5, longitude: 2.25), altitude: 35, horizontalAccuracy: 5,
            verticalAccuracy: 6, course: 90, speed: 1.5, timestamp: Date(timeIntervalSince1970: 1_000))
        record["asset"] = CKAsset(fileURL: asset)
        record["strings"] = ["a", "b\"", ""]
        record["ints"] = [1, -2] as [Int64]
        record["doubles"] = [1.5, .infinity]
        record["dates"] = [Date(timeIntervalSince1970: 1)]
        record["blobs"] = [Data([1]), Data()]
        record["refs"] = [CKRecord.Reference(recordID: other, action: .none)]
        record["assets"] = [CKAsset(fileURL: asset)]
        record["a_1"] = "an underscore and a digit"
        record["Zed"] = 1 as Int64
        record.parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: "plain", zoneID: zoneID), action: .none)
    }

    /// Desired keys: none, a subset out of order with repeats and unknown names, nothing.
    static let desiredKeys: [[String]?] = [
        nil, ["title"], ["zz", "ref", "title", "asset", "title", "a_1", "Zed"], [], ["missing"],
    ]

    @Test func storedEntriesAreWrittenAsTheirRecords() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let caller = Caller(userRecordName: "_alice", role: .user)
        let namespace = Namespace(container: "iCloud.com.example.changes", environment: .development, owner: "_alice")
        let database = try engine.database(namespace: namespace, scope: .private, caller: caller)
        _ = try database.modifyZones(saving: [CKRecordZone(zoneID: Self.zoneID)], deleting: [])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stored-change-\(UUID()).bin")
        try Data("asset content".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let full = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "full", zoneID: Self.zoneID))
        Self.everyField(full, asset: file)
        let plain = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "plain", zoneID: Self.zoneID))
        plain["title"] = "short"
        let doomed = CKRecord(recordType: "Gone", recordID: CKRecord.ID(recordName: "doomed", zoneID: Self.zoneID))
        try database.createAndDelete([full, plain, doomed], deleting: [])
        let middle = try database.fetchZoneChanges(Self.zoneID, since: nil, limit: 100, desiredKeys: nil).token
        try database.createAndDelete([], deleting: [doomed.recordID])

        let translators = [
            WSRecordTranslator(callerRecordName: "_alice", assets: NamingAssets()),
            WSRecordTranslator(callerRecordName: nil, assets: NamingAssets()), WSRecordTranslator(),
        ]
        var compared = 0
        for token in [nil, middle] {
            for keys in Self.desiredKeys {
                for translator in translators {
                    for numbersAsStrings in [false, true] {
                        compared += try compare(
                            database, since: token, keys, translator, numbersAsStrings: numbersAsStrings)
                    }
                }
            }
        }
        #expect(compared == 5 * 3 * 2 * (2 + 1), "records and tombstones compared")
    }

    /// Compares the two paths' answers for one fetch, with and without the zone named; the
    /// number of changes compared.
    private func compare(
        _ database: DatabaseContext, since token: CKServerChangeToken?, _ keys: [String]?,
        _ translator: WSRecordTranslator, numbersAsStrings: Bool
    ) throws -> Int {
        let general = try database.fetchZoneChanges(Self.zoneID, since: token, limit: 100, desiredKeys: keys)
        let stored = try database.fetchStoredZoneChanges(Self.zoneID, since: token, limit: 100, desiredKeys: keys)
        #expect(general.changes.count == stored.changes.count)
        #expect(general.clientChangeTokenData == stored.clientChangeTokenData)
        for namingZone in [false, true] {
            var out = WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: 0)
            out.write(
                stored, of: Self.zoneID, syncToken: SyncTokenText.encode(stored.token.data), namingZone: namingZone)
            let wanted = expectedAnswer(general, translator, numbersAsStrings, namingZone: namingZone)
            #expect(String(decoding: out.bytes, as: UTF8.self) == String(decoding: wanted, as: UTF8.self))
            let pieces = writtenInPieces(stored, translator, numbersAsStrings, namingZone: namingZone)
            #expect(pieces.count == stored.changes.count + 1, "one piece per change, the last one closing")
            #expect(String(decoding: pieces.joined(), as: UTF8.self) == String(decoding: wanted, as: UTF8.self))
        }
        for case .changed(let record) in general.changes where keys == nil && record.recordID.recordName == "full" {
            // Not vacuous: every field is there, with its content.
            #expect(record.allKeys().count == 22)
            let text = translator.serializedDictionary(
                for: record, numbersAsStrings: numbersAsStrings, desiredKeys: nil)
            #expect(
                String(decoding: text, as: UTF8.self).contains("https://assets.test/") == (translator.assets != nil))
        }
        return stored.changes.count
    }

    /// The answer written as `ChangesAnswerStream` sends it, a piece at a time (here one change
    /// per piece, the end in a piece of its own), each piece taken out of the writer.
    private func writtenInPieces(
        _ batch: StoredZoneChangesBatch, _ translator: WSRecordTranslator, _ numbersAsStrings: Bool, namingZone: Bool
    ) -> [[UInt8]] {
        var out = WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: 0)
        var pieces: [[UInt8]] = []
        out.begin(batch)
        for index in batch.changes.indices {
            out.writeChanges(batch.changes[index...index], of: Self.zoneID)
            pieces.append(out.bytes)
            out.removeAllBytes()
        }
        out.end(of: Self.zoneID, syncToken: SyncTokenText.encode(batch.token.data), namingZone: namingZone)
        pieces.append(out.bytes)
        return pieces
    }

    /// The answer as the endpoints wrote it from `CKRecord`s.
    private func expectedAnswer(
        _ batch: ZoneChangesBatch, _ translator: WSRecordTranslator, _ numbersAsStrings: Bool, namingZone: Bool
    ) -> [UInt8] {
        var out = JSONWriter()
        out.object { members in
            members.member("moreComing") { $0.bool(batch.moreComing) }
            members.member("records") {
                $0.array(batch.changes) { records, change in
                    switch change {
                    case .changed(let record):
                        translator.write(record, numbersAsStrings: numbersAsStrings, desiredKeys: nil, into: &records)
                    case .deleted(let id, let type):
                        records.value(translator.tombstone(for: id, recordType: type))
                    }
                }
            }
            members.member("syncToken") { $0.string(SyncTokenText.encode(batch.token.data)) }
            if namingZone {
                members.member("zoneID") { translator.write(Self.zoneID, into: &$0) }
            }
        }
        return out.bytes
    }
}
