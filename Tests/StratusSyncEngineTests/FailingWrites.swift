import Stratus
import StratusBackend
import StratusTestSupport
import Synchronization

/// A store whose writes fail with one error while the test says so, counting the writes it
/// refuses: the store the retry and backoff tests send through.
final class FailingWrites: Sendable {
    private let isFailing = Atomic<Bool>(false)
    private let refusedWrites = Atomic<Int>(0)
    private let error: BackendError

    /// Writes that fail with `code` and `message` once ``fail(_:)`` is called.
    init(_ code: BackendError.Code, _ message: String) {
        error = BackendError(code, message)
    }

    /// The writes refused so far.
    var refused: Int { refusedWrites.load(ordering: .sequentiallyConsistent) }

    /// Makes the writes fail (`true`) or succeed again (`false`).
    func fail(_ failing: Bool) {
        isFailing.store(failing, ordering: .sequentiallyConsistent)
    }

    /// `base`, with its writes failing while ``fail(_:)`` says so.
    func backend(over base: any DatabaseBackend) -> WrappingBackend {
        var hooks = BackendHooks()
        hooks.write = { [self] base, body in
            if isFailing.load(ordering: .sequentiallyConsistent) {
                refusedWrites.add(1, ordering: .sequentiallyConsistent)
                throw error
            }
            try base.write(body)
        }
        return WrappingBackend(base: base, hooks: hooks)
    }

    /// A device syncing automatically through `container` (over ``backend(over:)``), with a
    /// zone save pending, after the writes start to fail; the database is opened first, so
    /// that only the device's sends write.
    func deviceSavingAZone(through container: CKContainer) async throws -> Device {
        _ = try await container.privateCloudDatabase.allRecordZones()
        fail(true)
        let device = Device("A")
        device.start(container.privateCloudDatabase, automaticallySync: true)
        device.createZone()
        return device
    }
}
