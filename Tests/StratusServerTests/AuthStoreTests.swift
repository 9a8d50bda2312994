import Foundation
import Stratus
import StratusInMemory
import StratusServer
import Testing

/// ``AuthStore``'s look-up of a presented API token, which the endpoints will use.
@Suite("AuthStore: presented API tokens")
struct AuthStoreTests {
    @Test func aPresentedTokenIsFoundUntilRevokedAndNothingElseIs() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let store = AuthStore(engine: engine)
        try store.createContainer("iCloud.a", environments: [.development])
        let (token, entry) = try store.createAPIToken(container: "iCloud.a", environment: .development, label: "")
        #expect(try store.apiToken(presented: token) == entry)
        // Stored dates come back exactly, whatever their fraction of a second.
        for _ in 0..<50 {
            let now = Date(timeIntervalSinceReferenceDate: Double.random(in: 700_000_000...900_000_000))
            let made = try store.createAPIToken(container: "iCloud.a", environment: .development, label: "", now: now)
            #expect(try store.apiToken(presented: made.token)?.created == now)
        }

        var other = Array(token)
        other[0] = other[0] == "0" ? "1" : "0"
        #expect(try store.apiToken(presented: String(other)) == nil, "a token differing in one digit")
        #expect(try store.apiToken(presented: token.uppercased()) == nil, "not the token's spelling")
        #expect(try store.apiToken(presented: "") == nil)
        #expect(try store.apiToken(presented: String(token.dropLast())) == nil)

        try store.revokeAPIToken(container: "iCloud.a", id: entry.id)
        #expect(try store.apiToken(presented: token) == nil, "a revoked token")
        try store.revokeAPIToken(container: "iCloud.a", id: entry.id)
    }

    @Test func authDataNeverTouchesTheEnginesRecords() async throws {
        let backend = InMemoryBackend()
        let engine = try Engine(backend: backend)
        let store = AuthStore(engine: engine)
        try store.createContainer("iCloud.a", environments: [.development, .production])
        _ = try store.createAPIToken(container: "iCloud.a", environment: .production, label: "x")
        let container = CKContainer(identifier: "iCloud.a", backend: backend)
        let zones = try await container.privateCloudDatabase.allRecordZones()
        #expect(zones.map(\.zoneID.zoneName) == [CKRecordZone.ID.defaultZoneName])
        #expect(try store.containers().map(\.name) == ["iCloud.a"])
    }
}
