import Foundation
import Stratus
import StratusRemote
import Testing

/// The binary record encoding carries one user's requests to that user's data only
/// (decision 0018 changes the body, never the tenancy of decision 0013): another user's
/// binary changes and modify requests never read or change the first user's private records,
/// and a public record is changed only by its creator.
@Suite("Remote containers: the binary record encoding between users")
struct RecordEncodingTenancyTests {
    let zone = CKRecordZone.ID(zoneName: "Mine")

    /// A remote container of `user` on the fixture's server.
    func container(_ fixture: RecordEncodingFixture, user: String) throws -> CKContainer {
        CKContainer(
            identifier: RecordEncodingFixture.identifier,
            server: RemoteServer(
                url: fixture.storage.url,
                credentials: try fixture.storage.credentials(for: RecordEncodingFixture.identifier, user: user)))
    }

    @Test func anotherUsersBinaryRequestsNeverReachMyPrivateRecords() async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: true)
        do {
            let alice = try container(fixture, user: "alice").privateCloudDatabase
            let bob = try container(fixture, user: "bob").privateCloudDatabase
            _ = try await alice.save(CKRecordZone(zoneID: zone))
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1", zoneID: zone))
            note["text"] = "alice's"
            _ = try await alice.modifyRecords(saving: [note], deleting: [])
            let before = try await alice.recordZoneChanges(inZoneWith: zone, since: nil)

            // Bob's private database has no zone of that name: his changes request and his
            // modify fail as CloudKit's do, and read or write nothing of Alice's.
            await #expect(throws: CKError.self) { _ = try await bob.recordZoneChanges(inZoneWith: zone, since: nil) }
            let intruder = CKRecord(recordType: "Note", recordID: note.recordID)
            intruder["text"] = "bob's"
            let refused = try? await bob.modifyRecords(saving: [intruder], deleting: [note.recordID])
            for result in Array(refused?.saveResults.values ?? [:].values) {
                #expect(throws: CKError.self) { try result.get() }
            }

            // With a zone of his own by the same name, Bob's records are his.
            _ = try await bob.save(CKRecordZone(zoneID: zone))
            _ = try await bob.modifyRecords(saving: [intruder], deleting: [], savePolicy: .allKeys)
            let bobs = try await bob.recordZoneChanges(inZoneWith: zone, since: nil)
            let bobsNote = try #require(try bobs.modificationResultsByID[note.recordID]?.get().record)
            #expect(bobsNote["text"] as? String == "bob's")

            let after = try await alice.recordZoneChanges(inZoneWith: zone, since: before.changeToken)
            #expect(after.modificationResultsByID.isEmpty && after.deletions.isEmpty, "Alice's zone is untouched")
            let mine = try await alice.record(for: note.recordID)
            #expect(mine["text"] as? String == "alice's")
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    @Test func aPublicRecordIsChangedOnlyByItsCreator() async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: true)
        do {
            let alice = try container(fixture, user: "alice").publicCloudDatabase
            let bob = try container(fixture, user: "bob").publicCloudDatabase
            let post = CKRecord(recordType: "Post", recordID: CKRecord.ID(recordName: "p1"))
            post["text"] = "alice's"
            _ = try await alice.modifyRecords(saving: [post], deleting: [])
            let edit = CKRecord(recordType: "Post", recordID: post.recordID)
            edit["text"] = "bob's"
            // Refused as the item's error, or (one item, atomic by default) as the request's.
            var code: CKError.Code?
            do {
                let result = try await bob.modifyRecords(saving: [edit], deleting: [], savePolicy: .allKeys)
                if case .failure(let error as CKError)? = result.saveResults[post.recordID] { code = error.code }
            } catch let error as CKError {
                code = error.code
            }
            #expect(code == .permissionFailure)
            let stored = try await alice.record(for: post.recordID)
            #expect(stored["text"] as? String == "alice's")
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}
