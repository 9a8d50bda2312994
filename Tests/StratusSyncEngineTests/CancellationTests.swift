import Stratus
import Synchronization
import Testing

/// Cancelling: a fetch whose task is cancelled while the delegate handles `willFetchChanges`
/// fails with `operationCancelled` at its next step, after posting `didFetchChanges` (one for
/// each `willFetchChanges`, as Apple documents); `cancelOperations()` returns once nothing runs,
/// and later fetches run.
@Suite struct CancellationTests {
    @Test func aCancelledFetchFailsWithOperationCancelledAndTheEngineGoesOn() async throws {
        try await SyncBackend.memory.withStore { open in
            let delegate = HoldingRecorder(holdAt: "willFetchChanges")
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
            #expect(delegate.pairEvents.suffix(2) == ["willFetchChanges", "didFetchChanges"])

            await engine.cancelOperations()
            try await engine.fetchChanges()
            #expect(delegate.pairEvents.last == "didFetchChanges")
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
