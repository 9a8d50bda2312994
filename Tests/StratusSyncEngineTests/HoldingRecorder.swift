import Stratus
import Synchronization

/// Records the events, and holds the engine in the first event named `holdAt` until the
/// task that waits for the engine is cancelled and ``release()`` is called (a sync engine
/// delegate for the event-order and cancellation tests).
final class HoldingRecorder: CKSyncEngineDelegate, Sendable {
    private struct Model {
        var held = false
        var release: CheckedContinuation<Void, Never>?
        var events: [String] = []
        var zoneErrors: [CKError.Code?] = []
    }

    private let holdAt: String?
    private let model = Mutex(Model())

    init(holdAt: String? = nil) {
        self.holdAt = holdAt
    }

    var held: Bool { model.withLock { $0.held } }
    /// The names of the `will…` and `did…` events posted, in order.
    var pairEvents: [String] {
        model.withLock { $0.events.filter { $0.hasPrefix("will") || $0.hasPrefix("did") } }
    }
    /// The error codes of the `didFetchRecordZoneChanges` events, in order.
    var zoneErrors: [CKError.Code?] { model.withLock { $0.zoneErrors } }

    func release() {
        model.withLock { $0.release }?.resume()
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        let name = String(describing: event).prefix { $0 != "(" }.description
        model.withLock { model in
            model.events.append(name)
            if case .didFetchRecordZoneChanges(let done) = event { model.zoneErrors.append(done.error?.code) }
        }
        guard name == holdAt, !model.withLock({ $0.held }) else { return }
        await withCheckedContinuation { continuation in
            model.withLock {
                $0.held = true
                $0.release = continuation
            }
        }
    }

    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }
}
