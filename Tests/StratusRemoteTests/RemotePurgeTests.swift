import Foundation
import Stratus
import StratusInMemory
import StratusRemote
import StratusTestSupport
import Testing

/// `purgeChangeHistory(in:)` through remote containers (decision 0021): the server's engine
/// purges, an old token then fails as it does embedded, and nobody purges another user's zone.
@Suite("Remote containers: purging change history")
struct RemotePurgeTests {
    let fixture: RemoteFixture
    let zone = CKRecordZone.ID(zoneName: "Purged")

    init() async throws {
        fixture = try await offPool { try RemoteFixture() }
    }

    /// Makes `zone` in `database` with records r0…r5, and answers a token taken after them;
    /// then deletes r5 (a tombstone the purge drops).
    func prepare(_ database: CKDatabase) async throws -> CKServerChangeToken {
        _ = try await database.save(CKRecordZone(zoneID: zone))
        let records = (0..<6).map { index in
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "r\(index)", zoneID: zone))
            record["n"] = index
            return record
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        let token = try await database.recordZoneChanges(inZoneWith: zone, since: nil).changeToken
        _ = try await database.modifyRecords(saving: [], deleting: [CKRecord.ID(recordName: "r5", zoneID: zone)])
        return token
    }

    /// The error of a zone-changes fetch from `token`, `nil` when it succeeds.
    func fetchError(_ database: CKDatabase, since token: CKServerChangeToken) async -> CKError? {
        do {
            _ = try await database.recordZoneChanges(inZoneWith: zone, since: token)
            return nil
        } catch {
            return error as? CKError ?? CKError(.internalError)
        }
    }

    /// Purges `zoneID` in `database` off the concurrency pool (the call blocks): its error, if any.
    func purge(_ database: CKDatabase, _ zoneID: CKRecordZone.ID) async -> CKError? {
        await offPool { () -> CKError? in
            do {
                try database.purgeChangeHistory(in: zoneID)
                return nil
            } catch {
                return error as? CKError ?? CKError(.internalError)
            }
        }
    }

    @Test func aPurgeExpiresOldTokensAsEmbeddedDoes() async throws {
        let embedded = CKContainer(identifier: RemoteFixture.container, backend: InMemoryBackend()).privateCloudDatabase
        let remote = fixture.alice().privateCloudDatabase
        var codes: [CKError.Code?] = []
        for database in [embedded, remote] {
            let token = try await prepare(database)
            #expect(await fetchError(database, since: token) == nil, "the token works before the purge")
            let failure = await purge(database, zone)
            #expect(failure == nil, "\(String(describing: failure))")
            let error = await fetchError(database, since: token)
            codes.append(error?.code)
            #expect(error?.localizedDescription.contains("purged") == true, "\(String(describing: error))")
            let fresh = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
            #expect(fresh.modificationResultsByID.keys.map(\.recordName).sorted() == ["r0", "r1", "r2", "r3", "r4"])
            #expect(fresh.deletions.isEmpty, "the tombstone of r5 is gone")
            #expect(await fetchError(database, since: fresh.changeToken) == nil, "a token after the purge works")
        }
        #expect(codes == [.changeTokenExpired, .changeTokenExpired])
    }

    @Test func anotherUsersPurgeIsRefusedAndPurgesNothing() async throws {
        let alice = fixture.alice()
        let token = try await prepare(alice.privateCloudDatabase)
        let aliceName = try await alice.userRecordID().recordName
        let bob = fixture.bob().privateCloudDatabase
        let alicesZone = CKRecordZone.ID(zoneName: zone.zoneName, ownerName: aliceName)
        let refused = await purge(bob, alicesZone)
        #expect(refused?.code == .permissionFailure, "\(String(describing: refused))")
        // Bob's own database has no such zone: naming it without an owner reaches only his.
        let missing = await purge(bob, zone)
        #expect(missing?.code == .zoneNotFound, "\(String(describing: missing))")
        // Alice's history is whole: the old token still reports r5's deletion.
        let changes = try await alice.privateCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token)
        #expect(changes.deletions.map(\.recordID.recordName) == ["r5"])
    }

    @Test func aUserCannotPurgeThePublicOrSharedDatabase() async throws {
        let alice = fixture.alice()
        for database in [alice.publicCloudDatabase, alice.sharedCloudDatabase] {
            let error = await purge(database, .default)
            #expect(
                error?.code == .permissionFailure, "\(database.databaseScope.rawValue): \(String(describing: error))")
        }
    }
}
