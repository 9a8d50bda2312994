/// One conformance case: a stable dotted ID, what it checks, and its body.
///
/// Cases are data, so a test target runs every one of them, including cases added in later
/// versions, with one parameterized test:
///
/// ```swift
/// @Test(arguments: ConformanceSuite.cases)
/// func conformance(_ c: ConformanceCase) async throws {
///     try await c.run(with: MyBackendFixture())
/// }
/// ```
public struct ConformanceCase: Sendable, CustomStringConvertible, Hashable {
    /// The stable dotted ID, such as `kv.scan.reverseWithLimit`.
    public let id: String
    /// One sentence saying what the case checks.
    public let summary: String
    /// The numbers of the invariants of `cloudkit-semantics.md` §11 that the case checks.
    public let invariants: [Int]
    /// Why the case reaches beneath the CloudKit API to the storage itself (it drives the
    /// backend's transactions, reads its keys, closes a handle to simulate a crash, or calls a
    /// store-side administration API), or `nil` when it works through containers alone.
    ///
    /// A fixture whose storage is a ``ContainerStorage`` (a server that containers reach
    /// remotely) runs the cases without such a reason; the others are named with theirs.
    public private(set) var storageAccess: String?
    let body: @Sendable (ConformanceContext) async throws -> Void

    /// A case with a body.
    public init(
        _ id: String, invariants: [Int] = [], _ summary: String,
        body: @escaping @Sendable (ConformanceContext) async throws -> Void
    ) {
        self.id = id
        self.summary = summary
        self.invariants = invariants
        self.body = body
    }

    /// This case, saying why it needs the storage itself (see ``storageAccess``).
    func reachingStorage(_ reason: String) -> ConformanceCase {
        var copy = self
        copy.storageAccess = reason
        return copy
    }

    /// Runs the case on fresh storage from `fixture`, then destroys the storage.
    ///
    /// - Throws: ``ConformanceFailure`` when the backend breaks the contract, or when the
    ///   fixture cannot make or open its storage (then `step` says so).
    public func run(with fixture: any BackendFixture) async throws {
        try await CaseGate.shared.withSlot { try await runNow(with: fixture) }
    }

    /// Runs the case now (``run(with:)`` once the gate lets it).
    private func runNow(with fixture: any BackendFixture) async throws {
        let storage: any FixtureStorage
        do {
            storage = try await fixture.makeStorage()
        } catch {
            throw ConformanceFailure(
                caseID: id, step: "make storage with fixture '\(fixture.name)'",
                expected: "fresh storage", actual: "error: \(error)", trace: [])
        }
        let context = ConformanceContext(caseID: id, storage: storage)
        var failure: (any Error)?
        do {
            try await withTaskExecutorPreference(SerialQueueExecutor(label: "stratus.conformance.\(id)")) {
                try await body(context)
            }
        } catch let error as ConformanceFailure {
            failure = error
        } catch {
            failure = context.failure(
                expected: "no error", actual: "unexpected error: \(error)")
        }
        context.closeAll()
        if let served = storage as? any ContainerStorage { await served.stop() }
        do { try storage.destroy() } catch {
            if failure == nil {
                failure = context.failure(
                    expected: "storage destroyed", actual: "error: \(error)")
            }
        }
        if let failure { throw failure }
    }

    /// A textual description, for logs.
    public var description: String { id }

    /// Whether two values are equal.
    public static func == (lhs: ConformanceCase, rhs: ConformanceCase) -> Bool { lhs.id == rhs.id }
    /// Hashes the value into `hasher`.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
