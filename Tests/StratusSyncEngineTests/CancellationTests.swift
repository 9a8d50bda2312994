import Stratus
import Synchronization
import Testing

/// Cancelling: a fetch whose task is cancelled while the delegate handles `willFetchChanges`
/// fails with `operationCancelled` at its next step, after posting `didFetchChanges` (one for
/// each `willFetchChanges`, as Apple documents); `cancelOperations()` returns once nothing runs,
/// and later fetches run.
@Suite struct CancellationTests {
    /// Holds the engine in `willFetchChanges` until released.
    final class HoldingDelegate: CKSyncEngineDelegate, Sendable {
        private let state = Mutex<(held: Bool, release: CheckedContinuation<Void, Never>?, events: [String])>(
            (false, nil, []))

        var held: Bool { state.withLock { $0.held } }
        var events: [String] { state.withLock { $0.events } }

        func release() {
            state.withLock { $0.release }?.resume()
        }

        func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
            state.withLock { $0.events.append(String(describing: event)) }
            guard case .willFetchChanges = event, !state.withLock({ $0.held }) else { return }
            await withCheckedContinuation { continuation in
                state.withLock {
                    $0.held = true
                    $0.release = continuation
                }
            }
        }

        func nextRecordZoneChangeBatch(
            _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
        ) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }
    }

    @Test func aCancelledFetchFailsWithOperationCancelledAndTheEngineGoesOn() async throws {
        try await SyncBackend.memory.withStore { open in
            let delegate = HoldingDelegate()
            var configuration = CKSyncEngine.Configuration(
                database: try open().privateCloudDatabase, stateSerialization: nil, delegate: delegate)
            configuration.automaticallySync = false
            let engine = CKSyncEngine(configuration)
            let fetch = Task { try await engine.fetchChanges() }
            try await eventually { delegate.held }
            fetch.cancel()
            delegate.release()
            let result = await fetch.result
            #expect(throws: CKError.self) { try result.get() }
            #expect((result.failure as? CKError)?.code == .operationCancelled)
            #expect(delegate.events.suffix(2) == ["willFetchChanges", "didFetchChanges"])

            await engine.cancelOperations()
            try await engine.fetchChanges()
            #expect(delegate.events.last == "didFetchChanges")
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
