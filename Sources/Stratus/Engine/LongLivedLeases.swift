import Foundation
import StratusBackend

/// One long-lived operation a stratusd process runs: the number of the journal it lives in
/// (the caller's namespace) and its ID.
package struct LongLivedLease: Sendable, Hashable {
    package var journal: Int64
    package var operationID: String

    package init(journal: Int64, operationID: String) {
        self.journal = journal
        self.operationID = operationID
    }
}

/// Which stratusd process runs which long-lived operation (decision 0014.10):
/// `08 01 (journal number, operation ID)` → holder (a process ID) and expiry (seconds since
/// 1970). A holder renews its leases; a lease past its expiry may be claimed by any process,
/// in a transaction that checks it is still expired. Leases only avoid wasted work: the
/// journal's compare-and-append is what keeps callbacks exactly-once when two processes race.
package struct LongLivedLeases: Sendable {
    let engine: Engine

    static let subTag: UInt8 = 0x01

    package init(engine: Engine) {
        self.engine = engine
    }

    private static var prefix: OrderedKey { OrderedKey([StoreLayout.leaseTag]).appending(tag: subTag) }

    static func key(_ lease: LongLivedLease) -> [UInt8] {
        prefix.appending(lease.journal).appending(lease.operationID).bytes
    }

    /// Writes `lease` for `holder` until `expiry` inside `txn` (a submission's own transaction).
    static func set(_ lease: LongLivedLease, holder: String, expiry: Double, _ txn: any BackendWriteTransaction)
        throws
    {
        var w = ByteWriter()
        w.write(holder)
        w.write(expiry)
        try txn.set(key(lease), w.bytes)
    }

    private static func decode(_ bytes: [UInt8]) throws -> (holder: String, expiry: Double) {
        var r = ByteReader(bytes)
        return (try r.readString(), try r.readDouble())
    }

    /// Extends the leases `holder` still holds among `leases` to `expiry`; returns those it no
    /// longer holds (another process claimed them, or they were cleared).
    package func renew(_ leases: [LongLivedLease], holder: String, expiry: Double) throws -> [LongLivedLease] {
        guard !leases.isEmpty else { return [] }
        return try engine.writeLeavingGeneration { txn in
            var lost: [LongLivedLease] = []
            for lease in leases {
                guard let bytes = try txn.get(Self.key(lease)), try Self.decode(bytes).holder == holder else {
                    lost.append(lease)
                    continue
                }
                try Self.set(lease, holder: holder, expiry: expiry, txn)
            }
            return lost
        }
    }

    /// Claims for `holder` until `expiry` up to `limit` leases whose expiry is before `now`.
    package func claimExpired(holder: String, now: Double, expiry: Double, limit: Int) throws -> [LongLivedLease] {
        let expired = try engine.read { txn in
            try txn.scan(Self.prefix.range, limit: 4096).filter { try Self.decode($0.value).expiry < now }.map(\.key)
        }
        guard !expired.isEmpty else { return [] }
        let start = Self.prefix.bytes.count
        return try engine.writeLeavingGeneration { txn in
            var claimed: [LongLivedLease] = []
            for key in expired.prefix(limit) {
                // Checked again: another process may have claimed it since the scan.
                guard let bytes = try txn.get(key), try Self.decode(bytes).expiry < now else { continue }
                var reader = OrderedKeyReader(key, from: start)
                let lease = LongLivedLease(journal: try reader.readInteger(), operationID: try reader.readString())
                try Self.set(lease, holder: holder, expiry: expiry, txn)
                claimed.append(lease)
            }
            return claimed
        }
    }

    /// Sets the expiry of `lease` to `expiry` if `holder` holds it: `0` lets any process claim
    /// it at once (a graceful shutdown), a later time retries it then.
    package func release(_ lease: LongLivedLease, holder: String, until expiry: Double = 0) throws {
        try engine.writeLeavingGeneration { txn in
            guard let bytes = try txn.get(Self.key(lease)), try Self.decode(bytes).holder == holder else { return }
            try Self.set(lease, holder: holder, expiry: expiry, txn)
        }
    }

    /// Removes `lease`: its operation is finished (completed, cancelled or purged).
    package func clear(_ lease: LongLivedLease) throws {
        try engine.writeLeavingGeneration { txn in try txn.clear(Self.key(lease)) }
    }
}
