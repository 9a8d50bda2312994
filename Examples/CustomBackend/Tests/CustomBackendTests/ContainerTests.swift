import CustomBackend
import Stratus
import Testing

/// The backend used the way an application uses it: through `CKContainer`.
@Suite struct ContainerTests {
    @Test func saveAndFetchARecord() async throws {
        let container = CKContainer(identifier: "iCloud.com.example.notes", backend: SortedArrayBackend())
        let database = container.privateCloudDatabase

        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "first-note"))
        note["title"] = "Stored in a sorted array"
        note["stars"] = 5
        let saved = try await database.save(note)
        #expect(saved.recordChangeTag != nil)

        let fetched = try await database.record(for: note.recordID)
        #expect(fetched["title"] as? String == "Stored in a sorted array")
        #expect(fetched["stars"] as? Int == 5)
        #expect(fetched.recordChangeTag == saved.recordChangeTag)
    }

    @Test func aNewHandleOnTheStoreSeesTheRecord() async throws {
        let store = SortedArrayStore()
        let first = SortedArrayBackend(store: store)
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "kept"))
        note["title"] = "outlives its handle"
        _ = try await CKContainer(identifier: "iCloud.com.example.notes", backend: first)
            .privateCloudDatabase.save(note)
        first.close()
        #expect(store.count > 0)

        // "Reopen": a new handle, and a new container over it, on the same store.
        let reopened = CKContainer(identifier: "iCloud.com.example.notes", backend: SortedArrayBackend(store: store))
        let fetched = try await reopened.privateCloudDatabase.record(for: note.recordID)
        #expect(fetched["title"] as? String == "outlives its handle")
    }
}
