import StratusBackend
import Synchronization

/// How many write transactions have finished through the engines of this process over one
/// backend object (committed or not): a zone-changes read-ahead taken after such a write is
/// read again (decision 0009).
///
/// Every `CKContainer` has an engine of its own, and `CKContainer(identifier:)` makes a new
/// container each time it is called, so an app that fetches through one container and writes
/// from its callbacks through another (`CKContainer.default().privateCloudDatabase…`) still
/// writes through the same backend object: the counter is that backend's, shared by every
/// engine over it. A backend that is not a class instance (a custom value type) has no
/// identity to share by, and gets a counter per engine.
final class WriteGeneration: Sendable {
    private let count = Atomic<UInt64>(0)

    /// The number of writes counted so far.
    var value: UInt64 { count.load(ordering: .sequentiallyConsistent) }

    /// Counts one finished write.
    func advance() {
        count.add(1, ordering: .sequentiallyConsistent)
    }

    /// The counter of `backend`: one per backend object in the process, for as long as the
    /// object lives.
    static func shared(by backend: any DatabaseBackend) -> WriteGeneration {
        guard type(of: backend as Any) is AnyClass else { return WriteGeneration() }
        let object = backend as AnyObject
        return registry.withLock { entries in
            entries.removeAll { $0.object == nil }
            if let entry = entries.first(where: { $0.object === object }) { return entry.generation }
            let generation = WriteGeneration()
            entries.append(Entry(object: object, generation: generation))
            return generation
        }
    }

    private struct Entry: @unchecked Sendable {
        weak var object: AnyObject?
        let generation: WriteGeneration
    }

    private static let registry = Mutex<[Entry]>([])
}
