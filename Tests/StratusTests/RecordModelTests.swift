import Foundation
import Stratus
import Testing

/// The record model: values, archiving, `Codable`, system fields, assets, validation.
@Suite struct RecordModelTests {
    private func fixture() async throws -> (CKDatabase, CKRecordZone.ID) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        return (database, try await OpsTestKit.makeZone("Z", in: database))
    }

    @Test func valuesReadBackAsTheTypeTheyWereStoredAs() async throws {
        let (database, zone) = try await fixture()
        let record = CKRecord(recordType: "Mix", recordID: CKRecord.ID(recordName: "m", zoneID: zone))
        record["int"] = 42
        record["int64"] = Int64(1) << 40
        record["double"] = 2.5
        record["float"] = Float(1.5)
        record["bool"] = true
        record["uint"] = UInt(7)
        record["string"] = "héllo"
        record["date"] = Date(timeIntervalSince1970: 1_000_000)
        record["data"] = Data([0, 1, 2])
        record["tags"] = ["a", "b"]
        record["numbers"] = [1, 2, 3]
        record["place"] = CLLocation(latitude: 48.85, longitude: 2.35)
        record["owner"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "o", zoneID: zone), action: .none)
        _ = try await OpsTestKit.save([record], in: database)
        let fetched = try await database.record(for: record.recordID)
        #expect(fetched["int"] as? Int == 42)
        #expect(fetched["int64"] as? Int64 == Int64(1) << 40)
        #expect(fetched["double"] as? Double == 2.5)
        #expect(fetched["float"] as? Float == 1.5)
        #expect(fetched["bool"] as? Bool == true)
        #expect(fetched["uint"] as? UInt == 7)
        #expect(fetched["string"] as? String == "héllo")
        #expect(fetched["date"] as? Date == Date(timeIntervalSince1970: 1_000_000))
        #expect(fetched["data"] as? Data == Data([0, 1, 2]))
        #expect(fetched["tags"] as? [String] == ["a", "b"])
        #expect(fetched["numbers"] as? [Int] == [1, 2, 3])
        #expect((fetched["place"] as? CLLocation)?.coordinate.latitude == 48.85)
        #expect((fetched["owner"] as? CKRecord.Reference)?.recordID.recordName == "o")
        // The generic subscript converts numbers as NSNumber bridging does.
        let asDouble: Double? = fetched["int"]
        #expect(asDouble == 42)
        let asInt64: Int64? = fetched["int"]
        #expect(asInt64 == 42)
        #expect(Set(fetched.allKeys()).isSuperset(of: ["int", "tags", "owner"]))
        #expect(fetched.changedKeys().isEmpty)
        #expect(fetched.creationDate != nil && fetched.recordChangeTag != nil)
    }

    @Test func aValueCloudKitCannotStoreIsRejectedNamingTheField() async throws {
        let (database, zone) = try await fixture()
        let record = CKRecord(recordType: "Bad", recordID: CKRecord.ID(recordName: "b", zoneID: zone))
        record.setValue(URL(fileURLWithPath: "/tmp"), forKey: "link")
        let results = try await database.modifyRecords(saving: [record], deleting: [], atomically: false)
        guard case .failure(let error as CKError) = results.saveResults[record.recordID] else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .invalidArguments)
        #expect(error.localizedDescription.contains("link"))
    }

    @Test func aFieldKeepsTheTypeOfItsFirstSave() async throws {
        let (database, zone) = try await fixture()
        let first = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "a", zoneID: zone))
        first["count"] = 1
        _ = try await OpsTestKit.save([first], in: database)
        let second = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "b", zoneID: zone))
        second["count"] = "one"
        let results = try await database.modifyRecords(saving: [second], deleting: [], atomically: false)
        guard case .failure(let error as CKError) = results.saveResults[second.recordID] else {
            Issue.record("expected a type mismatch")
            return
        }
        #expect(error.code == .invalidArguments)
        #expect(error.localizedDescription.contains("count"))
    }

    @Test func archivedRecordsAndSystemFieldsRoundTrip() async throws {
        let (database, zone) = try await fixture()
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zone))
        record["title"] = "first"
        let saved = try await OpsTestKit.save([record], in: database)[0]

        let whole = try NSKeyedArchiver.archivedData(withRootObject: saved, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: whole))
        #expect(restored["title"] as? String == "first")
        #expect(restored.recordChangeTag == saved.recordChangeTag)

        // A cache keeps only the system fields; a record re-created from them saves changes.
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        saved.encodeSystemFields(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.requiresSecureCoding = true
        let shell = try #require(CKRecord(coder: decoder))
        #expect(shell.allKeys().isEmpty)
        #expect(shell.recordChangeTag == saved.recordChangeTag)
        shell["title"] = "second"
        let updated = try await database.save(shell)
        #expect(updated["title"] as? String == "second")
        #expect(updated.recordChangeTag != saved.recordChangeTag)
    }

    @Test func recordsAreCodable() async throws {
        let (database, zone) = try await fixture()
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "c", zoneID: zone))
        record["title"] = "codable"
        record["rank"] = 3
        record["tags"] = ["x"]
        let saved = try await OpsTestKit.save([record], in: database)[0]
        let json = try JSONEncoder().encode(saved)
        let decoded = try JSONDecoder().decode(CKRecord.self, from: json)
        #expect(decoded.recordID == saved.recordID)
        #expect(decoded.recordType == "Note")
        #expect(decoded["title"] as? String == "codable")
        #expect(decoded["rank"] as? Int == 3)
        #expect(decoded["tags"] as? [String] == ["x"])
        #expect(decoded.recordChangeTag == saved.recordChangeTag)
    }

    @Test func assetsAreStoredByTheEngineAndOutsideTheRecordLimit() async throws {
        let (database, zone) = try await fixture()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-asset-\(UUID().uuidString)")
        let content = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0) })
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p", zoneID: zone))
        record["image"] = CKAsset(fileURL: file)
        _ = try await OpsTestKit.save([record], in: database)
        try FileManager.default.removeItem(at: file)  // the store keeps its own copy

        let fetched = try await database.record(for: record.recordID)
        let asset = try #require(fetched["image"] as? CKAsset)
        let url = try #require(asset.fileURL)
        #expect(try Data(contentsOf: url) == content)
    }

    @Test func aMissingAssetFileIsReported() async throws {
        let (database, zone) = try await fixture()
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p", zoneID: zone))
        record["image"] = CKAsset(fileURL: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"))
        let results = try await database.modifyRecords(saving: [record], deleting: [], atomically: false)
        #expect(OpsTestKit.code(results.saveResults[record.recordID]) == .assetFileNotFound)
    }

    @Test func allTokensAreNormalized() {
        let record = CKRecord(recordType: "Note")
        record["title"] = "The Café of Bob"
        record["tags"] = ["Smith"]
        #expect(record.allTokens() == ["bob", "cafe", "smith"])
    }

    @Test func cancellingBeforeStartWritesNothing() async throws {
        let (database, zone) = try await fixture()
        let operation = CKModifyRecordsOperation(
            recordsToSave: [CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "x", zoneID: zone))],
            recordIDsToDelete: nil)
        let outcome = OpsLog<CKError.Code?>()
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { outcome.append(OpsTestKit.code(error)) } else { outcome.append(nil) }
        }
        operation.cancel()
        await OpsTestKit.run(operation, on: database)
        #expect(outcome.all == [.operationCancelled])
        let fetched = try await database.records(for: [CKRecord.ID(recordName: "x", zoneID: zone)])
        #expect(OpsTestKit.code(fetched.values.first) == .unknownItem)
    }
}
