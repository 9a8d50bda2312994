import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Issue 12, "Network faults": the `CKError` an operation ends with when the network or a proxy
/// keeps failing — bounded retries, timeouts, `retryAfter` honoured or surfaced, non-CloudKit
/// error pages — and the modifies that are sent once (decision 0016.5).
@Suite("Remote containers: network faults, errors and timeouts", .serialized, .timeLimit(.minutes(5)))
struct NetworkFaultStatusTests {
    static func isLookup(_ exchange: FaultProxyExchange) -> Bool { exchange.path.hasSuffix("records/lookup") }
    static let id = CKRecord.ID(recordName: "target", zoneID: NetworkFaultFixture.zone)

    /// A fixture holding the record that the lookups read.
    static func fixture(requestTimeout: Duration = .seconds(60)) async throws -> NetworkFaultFixture {
        let fixture = try await NetworkFaultFixture(requestTimeout: requestTimeout)
        _ = try await fixture.direct().save(NetworkFaultFixture.record("target", 7))
        return fixture
    }

    /// Looks the record up through the proxy: its error (`nil` on success) and how long it took.
    static func lookUp(_ fixture: NetworkFaultFixture) async -> (CKError?, Duration) {
        let database = fixture.throughProxy()
        _ = try? await database.allRecordZones()  // learn the user first, outside the timing
        return await timed {
            await failure {
                let record = try await database.record(for: id)
                #expect(record["n"] as? Int64 == 7)
            }
        }
    }

    @Test func aServerThatKeepsDroppingEndsInNetworkFailureAfterBoundedRetries() async throws {
        let fixture = try await Self.fixture()
        fixture.proxy.setPlan(FaultProxy.failing(.closeAtOnce, times: .max, where: Self.isLookup))
        let (error, elapsed) = await Self.lookUp(fixture)
        #expect(error?.code == .networkFailure, "\(String(describing: error)) \(fixture.transcript)")
        #expect(fixture.exchanges("records/lookup").count == 4, "the first try and three retries")
        #expect(elapsed < .seconds(30), "\(elapsed)")
        print("network faults: 4 dropped lookups ended in networkFailure after \(elapsed)")
    }

    @Test func aProxyThatStopsListeningIsNetworkUnavailable() async throws {
        let fixture = try await Self.fixture()
        let database = fixture.throughProxy(connectTimeout: .seconds(1))
        #expect(try await database.record(for: Self.id)["n"] as? Int64 == 7, "a pooled connection first")
        // The pooled connection is closed, and nothing listens on the port any more.
        fixture.proxy.stop()
        let (error, elapsed) = await timed {
            await failure { _ = try await database.record(for: Self.id) }
        }
        #expect(error?.code == .networkUnavailable, "\(String(describing: error))")
        #expect(elapsed < .seconds(30), "about the connect timeout: \(elapsed)")
        print("network faults: a stopped proxy was networkUnavailable after \(elapsed)")
    }

    @Test func aStallLongerThanTheRequestTimeoutIsNetworkFailure() async throws {
        let fixture = try await Self.fixture(requestTimeout: .seconds(2))
        fixture.proxy.setPlan(FaultProxy.failing(.stallResponse(seconds: 6), times: .max, where: Self.isLookup))
        let (error, elapsed) = await Self.lookUp(fixture)
        #expect(error?.code == .networkFailure, "\(String(describing: error)) \(fixture.transcript)")
        #expect(fixture.exchanges("records/lookup").count == 4, "\(fixture.transcript)")
        #expect(elapsed >= .seconds(8) && elapsed < .seconds(60), "four timeouts of 2 s: \(elapsed)")
        print("network faults: 4 lookups stalled past a 2 s timeout ended in networkFailure after \(elapsed)")
    }

    @Test func anOperationsTimeoutIntervalForRequestBoundsEachRequest() async throws {
        let fixture = try await Self.fixture()  // the server's request timeout: 60 s
        fixture.proxy.setPlan(FaultProxy.failing(.stallResponse(seconds: 6), times: .max, where: Self.isLookup))
        let database = fixture.throughProxy()
        _ = try await database.allRecordZones()
        let operation = CKFetchRecordsOperation(recordIDs: [Self.id])
        operation.configuration.timeoutIntervalForRequest = 1.5
        let outcome = Lines()
        operation.fetchRecordsResultBlock = { result in
            switch result {
            case .success: outcome.append("ok")
            case .failure(let error): outcome.append((error as? CKError)?.code.name ?? "\(error)")
            }
        }
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        let (_, elapsed) = await timed {
            database.add(operation)
            await offPool { done.wait() }
        }
        #expect(outcome.all == ["networkFailure"], "\(fixture.transcript)")
        #expect(fixture.exchanges("records/lookup").count == 4, "\(fixture.transcript)")
        #expect(elapsed >= .seconds(6) && elapsed < .seconds(23), "four timeouts of 1.5 s, not of 6 s: \(elapsed)")
    }

    @Test func aStallShorterThanTheRequestTimeoutOnlyDelays() async throws {
        let fixture = try await Self.fixture(requestTimeout: .seconds(10))
        fixture.proxy.setPlan(FaultProxy.failing(.stallResponse(seconds: 1), where: Self.isLookup))
        let (error, elapsed) = await Self.lookUp(fixture)
        #expect(error == nil, "\(String(describing: error))")
        #expect(fixture.exchanges("records/lookup").count == 1)
        #expect(elapsed >= .seconds(1), "\(elapsed)")
    }

    @Test(arguments: [(503, "TRY_AGAIN_LATER"), (429, "THROTTLED")])
    func aShortRetryAfterIsWaitedAndRetried(status: Int, code: String) async throws {
        let fixture = try await Self.fixture()
        let answer = FaultProxy.cloudKitError(status: status, serverErrorCode: code, retryAfter: 1)
        fixture.proxy.setPlan(FaultProxy.failing(.respond(answer), where: Self.isLookup))
        let (error, elapsed) = await Self.lookUp(fixture)
        #expect(error == nil, "\(String(describing: error))")
        #expect(fixture.exchanges("records/lookup").map(\.fault.mayReachServer) == [false, true])
        #expect(elapsed >= .seconds(1), "retryAfter 1 s was waited: \(elapsed)")
    }

    @Test(arguments: [
        (503, "TRY_AGAIN_LATER", CKError.Code.serviceUnavailable), (429, "THROTTLED", .requestRateLimited),
    ])
    func aLongRetryAfterSurfacesWithItsSeconds(status: Int, code: String, expected: CKError.Code) async throws {
        let fixture = try await Self.fixture()
        let answer = FaultProxy.cloudKitError(status: status, serverErrorCode: code, retryAfter: 30)
        fixture.proxy.setPlan(FaultProxy.failing(.respond(answer), where: Self.isLookup))
        let (error, elapsed) = await Self.lookUp(fixture)
        #expect(error?.code == expected, "\(String(describing: error))")
        #expect(error?.retryAfterSeconds == 30)
        #expect(fixture.exchanges("records/lookup").count == 1, "not retried: the app honours it")
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }

    @Test func aNonCloudKit503ReadsItsRetryAfterHeader() async throws {
        let fixture = try await Self.fixture()
        let short = FaultProxy.response(status: 503, headers: [("Retry-After", "1")], body: "<html>busy</html>")
        fixture.proxy.setPlan(FaultProxy.failing(.respond(short), where: Self.isLookup))
        let (error, elapsed) = await Self.lookUp(fixture)
        #expect(error == nil && elapsed >= .seconds(1), "\(String(describing: error)) \(elapsed)")

        let long = FaultProxy.response(status: 503, headers: [("Retry-After", "20")], body: "<html>busy</html>")
        fixture.proxy.setPlan(FaultProxy.failing(.respond(long), where: Self.isLookup))
        let (surfaced, _) = await Self.lookUp(fixture)
        #expect(surfaced?.code == .serviceUnavailable, "\(String(describing: surfaced))")
        #expect(surfaced?.retryAfterSeconds == 20)
    }

    @Test func aNonJSONErrorPageIsServerResponseLostAndRetried() async throws {
        let fixture = try await Self.fixture()
        let page = FaultProxy.response(status: 502, body: "<html><body>Bad Gateway</body></html>")
        fixture.proxy.setPlan(FaultProxy.failing(.respond(page), where: Self.isLookup))
        let (once, _) = await Self.lookUp(fixture)
        #expect(once == nil, "one bad gateway is retried: \(String(describing: once))")

        fixture.proxy.setPlan(FaultProxy.failing(.respond(page), times: .max, where: Self.isLookup))
        let (always, _) = await Self.lookUp(fixture)
        #expect(always?.code == .serverResponseLost, "\(String(describing: always))")
        #expect(fixture.exchanges("records/lookup").count == 2 + 4, "\(fixture.transcript)")
    }

    @Test func aZoneModifyWhoseResponseIsDroppedIsNetworkFailureAndNotResent() async throws {
        let fixture = try await NetworkFaultFixture()
        fixture.proxy.setPlan(
            FaultProxy.failing(.dropResponse(afterBytes: 0)) { $0.path.hasSuffix("zones/modify") })
        let zone = CKRecordZone(zoneID: CKRecordZone.ID(zoneName: "Once"))
        let database = fixture.throughProxy()
        let error = await failure { _ = try await database.modifyRecordZones(saving: [zone], deleting: []) }
        #expect(error?.code == .networkFailure, "\(String(describing: error))")
        let modifies = fixture.exchanges("zones/modify")
        #expect(modifies.count == 1 && modifies[0].reachedServer, "sent once: \(fixture.transcript)")
        let zones = try await fixture.direct().allRecordZones().map(\.zoneID.zoneName)
        #expect(zones.contains("Once"), "the server applied it; the client could not know")
    }

    @Test func aSubscriptionModifyWhoseResponseIsDroppedIsNetworkFailureAndNotResent() async throws {
        let fixture = try await NetworkFaultFixture()
        fixture.proxy.setPlan(
            FaultProxy.failing(.dropResponse(afterBytes: 0)) { $0.path.hasSuffix("subscriptions/modify") })
        let subscription = CKDatabaseSubscription(subscriptionID: "once")
        let database = fixture.throughProxy()
        let error = await failure { _ = try await database.modifySubscriptions(saving: [subscription], deleting: []) }
        #expect(error?.code == .networkFailure, "\(String(describing: error))")
        let modifies = fixture.exchanges("subscriptions/modify")
        #expect(modifies.count == 1 && modifies[0].reachedServer, "sent once: \(fixture.transcript)")
        let stored = try await fixture.direct().allSubscriptions().map(\.subscriptionID)
        #expect(stored == ["once"])
    }
}
