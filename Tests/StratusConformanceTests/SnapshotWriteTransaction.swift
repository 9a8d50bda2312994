import StratusBackend
import StratusTestSupport

/// A write transaction over a private copy of the data that logs its changes, so that they
/// can be replayed later into a real transaction: the heart of ``BrokenBackend/unisolatedWrites``.
///
/// It reads its own writes correctly; what it lacks is any isolation from other writers.
final class SnapshotWriteTransaction: BackendWriteTransaction {
    private enum Change {
        case set([UInt8], [UInt8])
        case clear([UInt8])
        case clearRange(KeyRange)
    }

    private var data: SortedKeyValueModel
    private var changes: [Change] = []

    init(snapshot: SortedKeyValueModel) {
        data = snapshot
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        data.value(forKey: key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        data.scan(range, limit: limit, reverse: reverse)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        data.set(value, forKey: key)
        changes.append(.set(key, value))
    }

    func clear(_ key: [UInt8]) throws {
        data.remove(key)
        changes.append(.clear(key))
    }

    func clearRange(_ range: KeyRange) throws {
        data.removeAll(in: range)
        changes.append(.clearRange(range))
    }

    /// Applies every logged change, in order, to `transaction`.
    func replay(into transaction: any BackendWriteTransaction) throws {
        for change in changes {
            switch change {
            case .set(let key, let value): try transaction.set(key, value)
            case .clear(let key): try transaction.clear(key)
            case .clearRange(let range): try transaction.clearRange(range)
            }
        }
    }
}
