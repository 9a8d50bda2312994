import StratusBackend

/// The transaction object a write body receives: reads and writes on the writer connection
/// inside one `BEGIN IMMEDIATE` transaction. Reads see the body's own writes.
///
/// Valid only inside its body: afterwards every call throws.
final class SQLiteWriteTransaction: SQLiteReadTransaction, BackendWriteTransaction {
    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try usableConnection().set(key, value)
    }

    func clear(_ key: [UInt8]) throws {
        try usableConnection().clear(key)
    }

    func clearRange(_ range: KeyRange) throws {
        try usableConnection().clearRange(range)
    }
}
