import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Synchronization
import Testing

/// The thinnest slice of decision 0016: CloudKit operations in a remote container, through a
/// real `stratusd` on loopback to its SQLite store and back.
@Suite("Remote containers: records")
struct RemoteRecordsTests {
    let fixture: RemoteFixture
    let zone = CKRecordZone.ID(zoneName: "Notes")

    init() async throws {
        fixture = try await offPool { try RemoteFixture() }
    }

    /// Saves `records` with a `CKModifyRecordsOperation` and answers its per-record results.
    func modify(_ database: CKDatabase, saving records: [CKRecord], deleting: [CKRecord.ID] = [])
        async throws -> [CKRecord.ID: Result<CKRecord, any Error>]
    {
        try await withCheckedThrowingContinuation { continuation in
            let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: deleting)
            let results = Mutex<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
            operation.perRecordSaveBlock = { id, result in results.withLock { $0[id] = result } }
            operation.modifyRecordsResultBlock = { result in
                switch result {
                case .success: continuation.resume(returning: results.withLock { $0 })
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
            database.add(operation)
        }
    }

    /// Fetches `ids` with a `CKFetchRecordsOperation`.
    func fetch(_ database: CKDatabase, _ ids: [CKRecord.ID]) async throws -> [CKRecord.ID: Result<CKRecord, any Error>]
    {
        try await withCheckedThrowingContinuation { continuation in
            let operation = CKFetchRecordsOperation(recordIDs: ids)
            let results = Mutex<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
            operation.perRecordResultBlock = { id, result in results.withLock { $0[id] = result } }
            operation.fetchRecordsResultBlock = { result in
                switch result {
                case .success: continuation.resume(returning: results.withLock { $0 })
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
            database.add(operation)
        }
    }

    @Test func aRecordSavedByOperationComesBackByOperation() async throws {
        let database = fixture.alice().privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneID: zone))
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1", zoneID: zone))
        note["title"] = "remote"
        note["count"] = Int64(3)
        note["when"] = Date(timeIntervalSince1970: 1_700_000_000.5)
        let saved = try #require(try await modify(database, saving: [note])[note.recordID]?.get())
        #expect(saved.recordChangeTag != nil)
        #expect(saved["title"] as? String == "remote")

        let fetched = try #require(try await fetch(database, [note.recordID])[note.recordID]?.get())
        #expect(fetched.recordType == "Note")
        #expect(fetched["title"] as? String == "remote")
        #expect(fetched["count"] as? Int64 == 3)
        #expect(fetched["when"] as? Date == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(fetched.recordChangeTag == saved.recordChangeTag)
        #expect(fetched.creationDate != nil)
        #expect(fetched.changedKeys().isEmpty, "a fetched record has no changes of its own")

        // Another process of the same user — a new container object — sees the same record.
        let again = try await fixture.alice().privateCloudDatabase.record(for: note.recordID)
        #expect(again.recordChangeTag == saved.recordChangeTag)
    }

    @Test func aMissingRecordIsUnknownItem() async throws {
        let database = fixture.alice().privateCloudDatabase
        let missing = CKRecord.ID(recordName: "nope")
        let results = try await fetch(database, [missing])
        #expect(throws: CKError.self) { try results[missing]?.get() }
        if case .failure(let error as CKError) = results[missing] {
            #expect(error.code == .unknownItem)
        } else {
            Issue.record("expected a failure, got \(String(describing: results[missing]))")
        }
    }

    @Test func aStaleSaveIsServerRecordChangedWithTheServerRecord() async throws {
        let database = fixture.alice().privateCloudDatabase
        let first = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "conflict"))
        first["title"] = "one"
        let saved = try await database.save(first)
        let stale = try await database.record(for: first.recordID)
        saved["title"] = "two"
        _ = try await database.save(saved)
        stale["title"] = "three"
        let error = try #require(await #expect(throws: CKError.self) { try await database.save(stale) })
        #expect(error.code == .serverRecordChanged)
        #expect(error.serverRecord?["title"] as? String == "two")
    }

    @Test func oneUserNeverSeesAnothersPrivateRecords() async throws {
        let alice = fixture.alice().privateCloudDatabase
        let secret = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "secret"))
        secret["title"] = "alice only"
        _ = try await alice.save(secret)
        let bob = fixture.bob().privateCloudDatabase
        let error = try #require(await #expect(throws: CKError.self) { try await bob.record(for: secret.recordID) })
        #expect(error.code == .unknownItem)
        #expect(try await fixture.alice().userRecordID() != fixture.bob().userRecordID())
    }

    @Test func anAssetTravelsBothWaysAndBobCannotReadAlicesDownload() async throws {
        let directory = try TemporaryDirectory(prefix: "remote-asset")
        defer { try? directory.remove() }
        let file = directory.appending("photo.bin")
        let content = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try content.write(to: file)
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "with-asset"))
        record["image"] = CKAsset(fileURL: file)
        record["gallery"] = [CKAsset(fileURL: file)]
        let saved = try await fixture.alice().privateCloudDatabase.save(record)
        #expect((saved["image"] as? CKAsset)?.fileURL == file, "the saved record keeps the app's own asset")
        try directory.remove()
        let fetched = try await fixture.alice().privateCloudDatabase.record(for: record.recordID)
        let local = try #require((fetched["image"] as? CKAsset)?.fileURL)
        #expect(try Data(contentsOf: local) == content)
        let list = try #require(fetched["gallery"] as? [CKAsset])
        #expect(try list.map { try Data(contentsOf: #require($0.fileURL)) } == [content])
        let error = try #require(
            await #expect(throws: CKError.self) {
                try await fixture.bob().privateCloudDatabase.record(for: record.recordID)
            })
        #expect(error.code == .unknownItem)
    }

    @Test func anAssetWhoseFileIsGoneIsRefusedNamingTheFieldAndNothingIsSaved() async throws {
        let database = fixture.alice().privateCloudDatabase
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "without-file"))
        record["title"] = "kept out"
        record["image"] = CKAsset(fileURL: URL(fileURLWithPath: "/nonexistent/stratus/photo.bin"))
        let error = try #require(await #expect(throws: CKError.self) { try await database.save(record) })
        #expect(error.code == .assetFileNotFound)
        #expect(error.localizedDescription.contains("'image'"), "\(error.localizedDescription)")
        let lookup = try #require(
            await #expect(throws: CKError.self) { try await database.record(for: record.recordID) })
        #expect(lookup.code == .unknownItem, "nothing was saved")
    }
}
