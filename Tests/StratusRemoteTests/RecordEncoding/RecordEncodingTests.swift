import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import StratusWebServices
import Testing

/// The binary record encoding between remote containers and `stratusd` (decision 0018):
/// records keep every field type and number type through it, per-item errors are CloudKit's,
/// a server without it is spoken to in JSON, and bytes that are not it change nothing.
@Suite("Remote containers: the binary record encoding")
struct RecordEncodingTests {
    let zone = CKRecordZone.ID(zoneName: "Encoded")

    /// A record with a field of every type the encoding carries, and a parent.
    func everyType(_ name: String) -> CKRecord {
        let record = CKRecord(recordType: "Every", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["string"] = "héllo, wörld"
        record["int"] = 42
        record["int64"] = Int64.min
        record["int8"] = Int8(-8)
        record["uint16"] = UInt16(65_000)
        record["bool"] = true
        record["double"] = 3.25
        record["float"] = Float(1.5)
        record["date"] = Date(timeIntervalSince1970: 1_700_000_000.125)
        record["bytes"] = Data([0, 1, 2, 255])
        record["location"] = CLLocation(latitude: 48.85, longitude: 2.35)
        let target = CKRecord.ID(recordName: "target", zoneID: zone)
        record["reference"] = CKRecord.Reference(recordID: target, action: .deleteSelf)
        record["strings"] = ["a", "b"] as [String]
        record["ints"] = [Int64(1), Int64(-2)] as [Int64]
        record["doubles"] = [0.5, 1.5] as [Double]
        record["dates"] = [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)] as [Date]
        record["datas"] = [Data([1]), Data()] as [Data]
        record["references"] = [CKRecord.Reference(recordID: target, action: .none)]
        record["locations"] = [CLLocation(latitude: 1, longitude: 2)]
        record.setParent(target)
        return record
    }

    @Test func everyFieldTypeRoundTripsThroughSavesAndChanges() async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: true)
        do {
            let database = try fixture.container().privateCloudDatabase
            _ = try await database.save(CKRecordZone(zoneID: zone))
            let target = CKRecord(recordType: "Every", recordID: CKRecord.ID(recordName: "target", zoneID: zone))
            let original = everyType("all")
            let saved = try await database.modifyRecords(saving: [target, original], deleting: [])
            let echo = try #require(try saved.saveResults[original.recordID]?.get())
            #expect(echo.storedFields.names == original.storedFields.names)
            // Every value and number type is the one saved; a location's timestamp is in whole
            // milliseconds, as in JSON.
            let exact = original.allKeys().filter { !$0.hasPrefix("location") }
            #expect(values(of: echo, exact) == values(of: original, exact))
            #expect(echo.parent?.recordID == target.recordID)
            #expect(echo.recordChangeTag != nil && echo.creationDate != nil && echo.changedKeys().isEmpty)

            let changes = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
            let fetched = try #require(try changes.modificationResultsByID[original.recordID]?.get().record)
            #expect(fetched.storedFields.names == original.storedFields.names)
            #expect(values(of: fetched, exact) == values(of: original, exact))
            #expect(fetched["int8"] as? Int8 == -8)
            #expect(fetched["float"] as? Float == 1.5)
            #expect(fetched.parent?.recordID == target.recordID)
            #expect(fetched.recordChangeTag == echo.recordChangeTag)
            #expect(fetched.modificationDate == echo.modificationDate)
            #expect(fetched.creatorUserRecordID == echo.creatorUserRecordID)

            // records/lookup is JSON: the record it reads is the same, to the millisecond.
            let looked = try await database.record(for: original.recordID)
            #expect(looked.storedFields.values == fetched.storedFields.values)
            #expect(looked.storedFields.values == echo.storedFields.values)
            #expect(looked.modificationDate == fetched.modificationDate)
            #expect(looked.creationDate == echo.creationDate)
            #expect(looked.modificationDate == echo.modificationDate)

            // The same fetch, raw: the server answered it in the binary encoding.
            let raw = try await fixture.post(
                "records/changes", Array(#"{"zoneID":{"zoneName":"Encoded"}}"#.utf8), contentType: "application/json",
                accept: StratusRecordEncoding.mediaType)
            #expect(raw.status == 200)
            #expect(raw.headers["content-type"] == StratusRecordEncoding.mediaType)
            #expect(raw.headers["accept-post"]?.contains(StratusRecordEncoding.mediaType) == true)
            let batch = try StratusRecordEncoding.readChangesAnswer(raw.body, zoneID: zone)
            #expect(batch.changes.count == 2)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    /// The values of `keys` in `record`.
    func values(of record: CKRecord, _ keys: [String]) -> [FieldValue?] {
        let (names, values) = record.storedFields
        return keys.map { key in names.firstIndex(of: key).map { values[$0] } }
    }

    @Test func perItemErrorsAreTheJSONAnswersErrors() async throws {
        var codes: [Bool: [String]] = [:]
        for encoding in [true, false] {
            let fixture = try await RecordEncodingFixture.start(recordEncoding: encoding)
            do {
                codes[encoding] = try await itemErrors(try fixture.container().privateCloudDatabase)
            } catch {
                await fixture.stop()
                throw error
            }
            await fixture.stop()
        }
        #expect(codes[true] == codes[false])
        #expect(codes[true]?.contains("serverRecordChanged:server") == true)
    }

    /// A non-atomic modify with a stale save, a good save and a delete of a record that is not
    /// there: each item's outcome, as `code[:server]` or `ok`.
    private func itemErrors(_ database: CKDatabase) async throws -> [String] {
        _ = try await database.save(CKRecordZone(zoneID: zone))
        let first = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zone))
        first["title"] = "one"
        _ = try await database.modifyRecords(saving: [first], deleting: [])
        let stale = CKRecord(recordType: "Note", recordID: first.recordID)
        stale["title"] = "two"
        let fresh = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "m", zoneID: zone))
        let missing = CKRecord.ID(recordName: "nowhere", zoneID: zone)
        let result = try await database.modifyRecords(
            saving: [stale, fresh], deleting: [missing], savePolicy: .ifServerRecordUnchanged, atomically: false)
        func describe(_ error: any Error) -> String {
            guard let error = error as? CKError else { return "other" }
            return "\(error.code)" + (error.serverRecord?["title"] as? String == "one" ? ":server" : "")
        }
        var outcomes: [String] = []
        for id in [stale.recordID, fresh.recordID] {
            switch result.saveResults[id] {
            case .success?: outcomes.append("ok")
            case .failure(let error)?: outcomes.append(describe(error))
            case nil: outcomes.append("absent")
            }
        }
        switch result.deleteResults[missing] {
        case .success?: outcomes.append("ok")
        case .failure(let error)?: outcomes.append(describe(error))
        case nil: outcomes.append("absent")
        }
        return outcomes
    }

    @Test func aServerWithoutTheEncodingIsSpokenToInJSON() async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: false)
        do {
            let database = try fixture.container().privateCloudDatabase
            _ = try await database.save(CKRecordZone(zoneID: zone))
            let original = everyType("json")
            let target = CKRecord(recordType: "Every", recordID: CKRecord.ID(recordName: "target", zoneID: zone))
            let saved = try await database.modifyRecords(saving: [target, original], deleting: [])
            let echo = try #require(try saved.saveResults[original.recordID]?.get())
            let changes = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
            let fetched = try #require(try changes.modificationResultsByID[original.recordID]?.get().record)
            // Locations aside (JSON carries their timestamps in milliseconds), every value and
            // number type is the one saved.
            let keys = original.allKeys().filter { !$0.hasPrefix("location") }
            for key in keys {
                let value = original.storedFields.values[original.storedFields.names.firstIndex(of: key)!]
                for record in [echo, fetched] {
                    let index = try #require(record.storedFields.names.firstIndex(of: key))
                    #expect(record.storedFields.values[index] == value, "\(key)")
                }
            }

            // It neither advertises the encoding nor answers in it, and refuses a body in it.
            let raw = try await fixture.post(
                "records/changes", Array(#"{"zoneID":{"zoneName":"Encoded"}}"#.utf8), contentType: "application/json",
                accept: StratusRecordEncoding.mediaType)
            #expect(raw.status == 200)
            #expect(raw.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(raw.headers["accept-post"] == nil)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    @Test func badBinaryInputIsRefusedWithNothingChanged() async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: true)
        do {
            let database = try fixture.container().privateCloudDatabase
            _ = try await database.save(CKRecordZone(zoneID: zone))
            let before = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
            var good = StratusRecordEncoding.ModifyRequestWriter(atomic: true, clientChangeTokenData: nil, count: 2)
            let record = everyType("bad")
            good.save(record, operationType: "create", keys: record.allKeys(), owner: "__defaultOwner__")
            good.save(everyType("worse"), operationType: "create", keys: ["string"], owner: "__defaultOwner__")
            var unknownType = good.bytes
            unknownType[4] = 0x7F
            // An asset comes in JSON with its upload receipt, never in this encoding.
            let withAsset = CKRecord(recordType: "Every", recordID: CKRecord.ID(recordName: "asset", zoneID: zone))
            withAsset["file"] = CKAsset(stagedContentID: "label.\(UUID().uuidString)", size: 3)
            var assetBody = StratusRecordEncoding.ModifyRequestWriter(
                atomic: false, clientChangeTokenData: nil, count: 1)
            assetBody.save(withAsset, operationType: "create", keys: ["file"], owner: "__defaultOwner__")
            let bodies: [(String, [UInt8])] = [
                ("an asset", assetBody.bytes),
                ("empty", []),
                ("another version", [2, 1, 0, 0]),
                ("truncated", Array(good.bytes.dropLast(3))),
                ("trailing bytes", good.bytes + [0]),
                ("more operations than bytes", [1, 1, 0, 0xFF, 0xFF, 0x03]),
                ("a damaged operation", unknownType),
            ]
            for (what, body) in bodies {
                let answer = try await fixture.post(
                    "records/modify", body, contentType: StratusRecordEncoding.mediaType,
                    accept: StratusRecordEncoding.mediaType)
                #expect(answer.status == 400, "\(what)")
                let json = try JSONValue.parse(answer.body)
                #expect(json["serverErrorCode"] == .string("BAD_REQUEST"), "\(what)")
                #expect(json["reason"] != nil, "\(what)")
            }
            // A million operations are refused by their count, before any is decoded.
            let million: [UInt8] = [1, 1, 0, 0xC0, 0x84, 0x3D] + Array(repeating: 0, count: 1_000_000)
            let many = try await fixture.post(
                "records/modify", million, contentType: StratusRecordEncoding.mediaType,
                accept: StratusRecordEncoding.mediaType)
            let refusal = try JSONValue.parse(many.body)
            #expect(many.status == 400 && refusal["stratusErrorCode"] == .string("limitExceeded"), "\(refusal)")
            #expect(refusal["reason"] == .string("the request has 1000000 operations; the limit is 400"))

            let after = try await database.recordZoneChanges(inZoneWith: zone, since: before.changeToken)
            #expect(after.modificationResultsByID.isEmpty && after.deletions.isEmpty)

            // The good body itself is accepted.
            let accepted = try await fixture.post(
                "records/modify", good.bytes, contentType: StratusRecordEncoding.mediaType,
                accept: StratusRecordEncoding.mediaType)
            #expect(accepted.status == 200)
            #expect(accepted.headers["content-type"] == StratusRecordEncoding.mediaType)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}
