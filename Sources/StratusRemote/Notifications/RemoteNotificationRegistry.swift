import Stratus
import Synchronization

/// What each container object has for its notifications (decision 0016.7): its courier token
/// (one per container object, for its life) and the task of its notification handler.
///
/// `CKContainer` is `Stratus`'s and has no room for them, so they are kept here by the
/// container's identity, with a weak reference that tells a live container from a new one at a
/// reused address; entries of containers gone are dropped on the next use.
final class RemoteNotificationRegistry: Sendable {
    private struct Slot {
        weak var container: CKContainer?
        let courier: RemoteCourier
        var handler: Task<Void, Never>?
    }

    /// The process's registry.
    static let shared = RemoteNotificationRegistry()

    private let slots = Mutex<[ObjectIdentifier: Slot]>([:])

    /// `container`'s courier, made on first use.
    func courier(for container: CKContainer) -> RemoteCourier {
        slots.withLock { slots in Self.slot(for: container, in: &slots).courier }
    }

    /// Makes `handler` the task delivering `container`'s notifications to its handler, cancelling
    /// the one before (`nil`: none).
    func replaceHandler(of container: CKContainer, with handler: Task<Void, Never>?) {
        let previous = slots.withLock { slots -> Task<Void, Never>? in
            let id = ObjectIdentifier(container)
            _ = Self.slot(for: container, in: &slots)
            let previous = slots[id]?.handler
            slots[id]?.handler = handler
            return previous
        }
        previous?.cancel()
    }

    /// The slot of `container`, made when it has none, after dropping those of containers gone.
    private static func slot(for container: CKContainer, in slots: inout [ObjectIdentifier: Slot]) -> Slot {
        for (id, slot) in slots where slot.container == nil {
            slot.handler?.cancel()
            slots[id] = nil
        }
        let id = ObjectIdentifier(container)
        if let existing = slots[id] { return existing }
        let made = Slot(container: container, courier: RemoteCourier())
        slots[id] = made
        return made
    }
}
