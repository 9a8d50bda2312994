import StratusBackend
import Synchronization

/// A ``DatabaseBackend`` that forwards to another and counts what the engine asks of it:
/// transactions, point reads (and misses), writes, scans, and bytes. Used only by the
/// footprint calibration, never in a timed run.
final class CountingBackend: DatabaseBackend {
    /// The totals so far.
    struct Counts: Codable, Sendable {
        /// Read transactions.
        var reads = 0
        /// Write transactions.
        var writes = 0
        /// Point reads.
        var gets = 0
        /// Point reads that found nothing.
        var getMisses = 0
        /// Calls of `getMany` (their keys count as point reads too).
        var getManyCalls = 0
        /// Keys written.
        var sets = 0
        /// Keys and ranges cleared.
        var clears = 0
        /// Range scans.
        var scans = 0
        /// Pairs the scans returned.
        var scannedPairs = 0
        /// Bytes of the keys written.
        var keyBytesWritten = 0
        /// Bytes of the values written.
        var valueBytesWritten = 0
        /// Bytes of the values read (point reads and scans).
        var valueBytesRead = 0
    }

    private let base: any DatabaseBackend
    private let totals = Mutex(Counts())

    /// A proxy in front of `base`.
    init(_ base: any DatabaseBackend) {
        self.base = base
    }

    /// The totals so far.
    var counts: Counts { totals.withLock { $0 } }

    /// Sets the totals back to zero.
    func reset() {
        totals.withLock { $0 = Counts() }
    }

    fileprivate func count(_ change: (inout Counts) -> Void) {
        totals.withLock { change(&$0) }
    }

    func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        count { $0.reads += 1 }
        return try base.read { try body(CountingReadTransaction(base: $0, owner: self)) }
    }

    func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        count { $0.writes += 1 }
        return try base.write { try body(CountingWriteTransaction(base: $0, owner: self)) }
    }

    func close() throws {
        try base.close()
    }
}

/// The reads of a ``CountingBackend`` transaction.
private class CountingReadTransaction: BackendReadTransaction {
    private let readBase: any BackendReadTransaction
    let owner: CountingBackend

    init(base: any BackendReadTransaction, owner: CountingBackend) {
        readBase = base
        self.owner = owner
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        let value = try readBase.get(key)
        owner.count {
            $0.gets += 1
            if let value { $0.valueBytesRead += value.count } else { $0.getMisses += 1 }
        }
        return value
    }

    func getMany(_ keys: [[UInt8]]) throws -> [[UInt8]?] {
        let values = try readBase.getMany(keys)
        owner.count {
            $0.getManyCalls += 1
            $0.gets += keys.count
            for value in values {
                if let value { $0.valueBytesRead += value.count } else { $0.getMisses += 1 }
            }
        }
        return values
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        let pairs = try readBase.scan(range, limit: limit, reverse: reverse)
        owner.count {
            $0.scans += 1
            $0.scannedPairs += pairs.count
            $0.valueBytesRead += pairs.reduce(0) { $0 + $1.value.count }
        }
        return pairs
    }
}

/// The writes of a ``CountingBackend`` transaction.
private final class CountingWriteTransaction: CountingReadTransaction, BackendWriteTransaction {
    private let writeBase: any BackendWriteTransaction

    init(base: any BackendWriteTransaction, owner: CountingBackend) {
        writeBase = base
        super.init(base: base, owner: owner)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try writeBase.set(key, value)
        owner.count {
            $0.sets += 1
            $0.keyBytesWritten += key.count
            $0.valueBytesWritten += value.count
        }
    }

    func clear(_ key: [UInt8]) throws {
        try writeBase.clear(key)
        owner.count { $0.clears += 1 }
    }

    func clearRange(_ range: KeyRange) throws {
        try writeBase.clearRange(range)
        owner.count { $0.clears += 1 }
    }
}
