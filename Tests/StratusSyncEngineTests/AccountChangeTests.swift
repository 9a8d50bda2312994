import Stratus
import Testing

/// `accountChange` on an embedded container (decision 0017.9): a first start, with no state,
/// signs the container's one user in before the first sync; a restart from the persisted state
/// posts nothing, because the state remembers the user it was synced for.
@Suite struct AccountChangeTests {
    @Test(arguments: SyncBackend.allCases)
    func aFirstStartSignsInAndARestartDoesNot(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n1", "one")
            try await a.engine.sendChanges()
            let user = try await open().userRecordID().recordName
            #expect(a.accountChanges == ["signIn(\(user))"])
            // Nothing pending is lost by signing in.
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)

            a.stop()
            a.start(try open().privateCloudDatabase)
            a.write("n2", "two")
            try await a.engine.sendChanges()
            try await a.engine.fetchChanges()
            #expect(a.accountChanges == ["signIn(\(user))"])
            #expect(a.notes == ["n1": "one", "n2": "two"])
        }
    }
}
