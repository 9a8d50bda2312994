import Foundation
import StratusBackend

extension Engine {
    /// Raw access to the server's part of the store (decision 0013.2), keys starting with
    /// ``ServerData/tag`` (`0x06`) only.
    package var serverData: ServerData { ServerData(engine: self) }
}

/// The server's auth data in the engine's store: every key starts with `0x06`, a tag the engine
/// never reads or writes (decision 0013.2). Transactions are the engine's (a write conflicting
/// with another runs again, as an engine write does), and failures are `CKError`s; a key
/// outside the prefix is refused with `invalidArguments` before the backend sees it.
package struct ServerData: Sendable {
    /// The first byte of every key.
    package static let tag: UInt8 = StoreLayout.serverDataTag
    /// Every key of the server's data.
    package static var range: KeyRange { KeyRange(prefix: [tag]) }

    let engine: Engine

    /// Runs `body` in a read transaction.
    package func read<T>(_ body: (Reader) throws -> T) throws -> T {
        try engine.read { txn in try body(Reader(txn: txn)) }
    }

    /// Runs `body` in a write transaction; like an engine write body, it may run more than once
    /// (on a conflict), so it must only write through the transaction.
    package func write<T>(_ body: (Writer) throws -> T) throws -> T {
        // Auth data moves no zone's changes: a zone-changes read-ahead stays valid.
        try engine.writeLeavingGeneration { txn in try body(Writer(txn: txn)) }
    }

    /// Refuses a key that does not start with ``tag``.
    static func check(_ key: [UInt8]) throws(CKError) {
        guard key.first == tag else {
            throw CKError.make(
                .invalidArguments,
                "server data keys start with 0x06; this key starts with "
                    + (key.first.map { String(format: "0x%02x", $0) } ?? "nothing"))
        }
    }

    /// Refuses a range that reaches outside the prefix.
    static func check(_ range: KeyRange) throws(CKError) {
        guard range.lowerBound.first == tag, !KeyRange.less(ServerData.range.upperBound, range.upperBound) else {
            throw CKError.make(.invalidArguments, "server data ranges lie within keys starting with 0x06")
        }
    }

    /// A read transaction limited to the server's keys.
    package struct Reader {
        let txn: any BackendReadTransaction

        package func get(_ key: [UInt8]) throws -> [UInt8]? {
            try ServerData.check(key)
            return try txn.get(key)
        }

        package func scan(_ range: KeyRange, limit: Int, reverse: Bool = false) throws -> [KeyValuePair] {
            try ServerData.check(range)
            return try txn.scan(range, limit: limit, reverse: reverse)
        }
    }

    /// A write transaction limited to the server's keys.
    package struct Writer {
        let txn: any BackendWriteTransaction

        package func get(_ key: [UInt8]) throws -> [UInt8]? {
            try ServerData.check(key)
            return try txn.get(key)
        }

        package func scan(_ range: KeyRange, limit: Int, reverse: Bool = false) throws -> [KeyValuePair] {
            try ServerData.check(range)
            return try txn.scan(range, limit: limit, reverse: reverse)
        }

        package func set(_ key: [UInt8], _ value: [UInt8]) throws {
            try ServerData.check(key)
            try txn.set(key, value)
        }

        package func clear(_ key: [UInt8]) throws {
            try ServerData.check(key)
            try txn.clear(key)
        }

        package func clearRange(_ range: KeyRange) throws {
            try ServerData.check(range)
            try txn.clearRange(range)
        }
    }
}
