import Foundation
import Stratus
import StratusRemote
import StratusTestSupport

/// A ``RemoteFixture`` (a real `stratusd` on loopback) with a ``FaultProxy`` in front of it:
/// `alice` reaches the server through the proxy, or directly to check what the server holds.
final class NetworkFaultFixture: Sendable {
    let remote: RemoteFixture
    let proxy: FaultProxy
    let requestTimeout: Duration
    /// The zone the tests' records live in (the default zone has no change feed).
    static let zone = CKRecordZone.ID(zoneName: "Faults")

    /// A server and a proxy that passes everything until a test sets its plan.
    init(seed: UInt64 = .random(in: 0...UInt64.max), requestTimeout: Duration = .seconds(60)) async throws {
        remote = try await offPool { try RemoteFixture() }
        proxy = try FaultProxy(forwardingTo: remote.server.baseURL, seed: seed) { _, _ in .pass }
        self.requestTimeout = requestTimeout
        _ = try await direct().modifyRecordZones(saving: [CKRecordZone(zoneID: Self.zone)], deleting: [])
    }

    /// A new container for alice whose requests go through the proxy.
    func throughProxy(connectTimeout: Duration = .seconds(10)) -> CKDatabase {
        let server = RemoteServer(
            url: proxy.url, credentials: .session(apiToken: remote.apiToken, webAuthToken: remote.aliceSession),
            requestTimeout: requestTimeout, connectTimeout: connectTimeout)
        return CKContainer(identifier: RemoteFixture.container, server: server).privateCloudDatabase
    }

    /// A new container for alice straight to the server: what the server holds.
    func direct() -> CKDatabase {
        remote.alice().privateCloudDatabase
    }

    /// The proxy's exchanges whose path ends with `suffix`.
    func exchanges(_ suffix: String) -> [FaultProxyExchange] {
        proxy.exchanges.filter { $0.path.hasSuffix(suffix) }
    }

    /// Every exchange, a line each, and the seed: what a failure message shows.
    var transcript: String {
        "seed \(proxy.seed)\n" + proxy.exchanges.map(\.description).joined(separator: "\n")
    }

    /// A new record named `name` in the test zone.
    static func record(_ name: String, _ value: Int64 = 0) -> CKRecord {
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["n"] = value
        return record
    }

    /// The test zone's change token now, read directly.
    func token() async throws -> CKServerChangeToken {
        try await changes(since: nil).token
    }

    /// The test zone's changes since `token`, read directly: each changed record's change tag by
    /// name, the deleted names, and the token after them.
    func changes(since token: CKServerChangeToken?) async throws -> (
        tags: [String: String], deleted: [String], token: CKServerChangeToken
    ) {
        var tags: [String: String] = [:]
        var deleted: [String] = []
        var token = token
        while true {
            let batch = try await direct().recordZoneChanges(inZoneWith: Self.zone, since: token)
            for (id, result) in batch.modificationResultsByID {
                tags[id.recordName] = try result.get().record.recordChangeTag ?? "none"
            }
            deleted += batch.deletions.map(\.recordID.recordName)
            token = batch.changeToken
            if !batch.moreComing { return (tags, deleted, batch.changeToken) }
        }
    }

    /// Waits (at most `seconds`) until the last exchange of each of `operations` is recorded as
    /// answered. The proxy records an answer once it has written it, a moment after the client
    /// may already have read it and returned: checking at once races that record.
    func waitForAnswers(to operations: [String], seconds: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, operations.contains(where: { exchanges($0).last?.answered != true }) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits (at most `seconds`) until the proxy has forwarded every request it stalled.
    func waitForStalledRequests(seconds: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let pending = proxy.exchanges.contains { exchange in
                // Reached the server and its answer read back: under load the answer comes
                // well after the request was forwarded.
                if case .stallRequest = exchange.fault {
                    return !exchange.reachedServer || exchange.serverStatus == nil
                }
                return false
            }
            if !pending { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// How long `body` took, and its result.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let start = ContinuousClock.now
    let value = try await body()
    return (value, ContinuousClock.now - start)
}

/// The `CKError` `body` fails with, or `nil` when it succeeds.
func failure(_ body: () async throws -> Void) async -> CKError? {
    do {
        try await body()
        return nil
    } catch let error as CKError {
        return error
    } catch {
        return CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "not a CKError: \(error)"])
    }
}
