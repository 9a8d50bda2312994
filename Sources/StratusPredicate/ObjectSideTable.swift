import Foundation

/// A thread-safe map from live objects to values, for data Foundation's classes have no room
/// for (the parsed form of an `NSPredicate`, the key of an `NSSortDescriptor`).
///
/// Entries are keyed by `ObjectIdentifier` and hold the object weakly: a lookup succeeds only
/// while the very object that was registered is alive, so a new object that reuses a freed
/// address never inherits a stale entry (the weak reference of the old entry reads `nil`).
/// Entries of freed objects are swept whenever the table has doubled since the last sweep,
/// so memory stays proportional to the live objects.
final class ObjectSideTable<Value: Sendable>: @unchecked Sendable {
    private struct Entry {
        weak var object: AnyObject?
        let value: Value
    }

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var sweepThreshold = 64

    /// Associates `value` with `object`, replacing any earlier value.
    func set(_ value: Value, for object: AnyObject) {
        lock.lock()
        defer { lock.unlock() }
        entries[ObjectIdentifier(object)] = Entry(object: object, value: value)
        if entries.count >= sweepThreshold {
            entries = entries.filter { $0.value.object != nil }
            sweepThreshold = max(64, entries.count * 2)
        }
    }

    /// The value associated with `object`, if it was registered and is the same object.
    func value(for object: AnyObject) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[ObjectIdentifier(object)], entry.object === object else { return nil }
        return entry.value
    }

    /// The number of entries, live or not yet swept (for tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
