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

/// What one pass of ``LongLivedLeases/claimExpired(holder:now:expiry:limit:after:pageSize:)``
/// did: the leases it claimed, how often each has now been claimed after its holder
/// disappeared, and where the next pass goes on.
package struct LeaseClaims: Sendable {
    /// The leases claimed, in key order.
    package var leases: [LongLivedLease] = []
    /// For each claimed lease, how many times it was claimed from a holder that let it expire
    /// (a graceful release does not count): the operation's failed attempts.
    package var claims: [LongLivedLease: Int64] = [:]
    /// The last lease key this pass looked at, to start the next pass after; `nil` when the
    /// pass reached the end (the next starts from the beginning).
    package var cursor: [UInt8]?
}

/// Which stratusd process runs which long-lived operation (decision 0014.10):
/// `08 01 (journal number, operation ID)` → holder (a process ID), expiry (seconds since
/// 1970), claims and whether the holder released it. A holder renews its leases; a lease past
/// its expiry may be claimed by any process, in a transaction that checks it is still expired.
/// Leases only avoid wasted work: the journal's compare-and-append is what keeps callbacks
/// exactly-once when two processes race.
package struct LongLivedLeases: Sendable {
    let engine: Engine

    static let subTag: UInt8 = 0x01
    /// The leases one claim pass reads at most.
    package static let defaultPageSize = 4096

    package init(engine: Engine) {
        self.engine = engine
    }

    private static var prefix: OrderedKey { OrderedKey([StoreLayout.leaseTag]).appending(tag: subTag) }

    static func key(_ lease: LongLivedLease) -> [UInt8] {
        prefix.appending(lease.journal).appending(lease.operationID).bytes
    }

    /// Writes `lease` for `holder` until `expiry` inside `txn` (a submission's own
    /// transaction), never claimed yet.
    static func set(_ lease: LongLivedLease, holder: String, expiry: Double, _ txn: any BackendWriteTransaction)
        throws
    {
        try txn.set(key(lease), LeaseRecord(holder: holder, expiry: expiry).encoded())
    }

    /// Extends the leases `holder` still holds among `leases` to `expiry`; returns those it no
    /// longer holds (another process claimed them, or they were cleared).
    package func renew(_ leases: [LongLivedLease], holder: String, expiry: Double) throws -> [LongLivedLease] {
        guard !leases.isEmpty else { return [] }
        return try engine.writeLeavingGeneration { txn in
            var lost: [LongLivedLease] = []
            for lease in leases {
                guard let bytes = try txn.get(Self.key(lease)), case var record = try LeaseRecord(decoding: bytes),
                    record.holder == holder
                else {
                    lost.append(lease)
                    continue
                }
                record.expiry = expiry
                try txn.set(Self.key(lease), record.encoded())
            }
            return lost
        }
    }

    /// Claims for `holder` until `expiry` up to `limit` leases whose expiry is before `now`,
    /// among the `pageSize` leases after `cursor` (from the start when `nil`): every lease is
    /// looked at within a bounded number of passes, however many there are. Each claim of a
    /// lease its holder let expire counts as one attempt (``LeaseClaims/claims``).
    package func claimExpired(
        holder: String, now: Double, expiry: Double, limit: Int, after cursor: [UInt8]? = nil,
        pageSize: Int = defaultPageSize
    ) throws -> LeaseClaims {
        var range = Self.prefix.range
        if let cursor { range.lowerBound = cursor + [0] }
        let page = try engine.read { txn in try txn.scan(range, limit: pageSize) }
        let expired = try page.filter { try LeaseRecord(decoding: $0.value).expiry < now }.map(\.key)
        let taken = Array(expired.prefix(limit))
        var result = LeaseClaims()
        // More expired leases than `limit`: the next pass starts after the last one taken.
        if expired.count > taken.count {
            result.cursor = taken.last
        } else if page.count == pageSize {
            result.cursor = page.last?.key
        }
        guard !taken.isEmpty else { return result }
        let start = Self.prefix.bytes.count
        return try engine.writeLeavingGeneration { txn in
            var claimed = result
            for key in taken {
                // Checked again: another process may have claimed it since the scan.
                guard let bytes = try txn.get(key), case var record = try LeaseRecord(decoding: bytes),
                    record.expiry < now
                else { continue }
                var reader = OrderedKeyReader(key, from: start)
                let lease = LongLivedLease(journal: try reader.readInteger(), operationID: try reader.readString())
                record.claims += record.released ? 0 : 1
                (record.holder, record.expiry, record.released) = (holder, expiry, false)
                try txn.set(key, record.encoded())
                claimed.leases.append(lease)
                claimed.claims[lease] = record.claims
            }
            return claimed
        }
    }

    /// Sets the expiry of `lease` to `expiry` if `holder` holds it: `0` lets any process claim
    /// it at once without counting an attempt (a graceful shutdown), a later time retries it
    /// then (and counts).
    package func release(_ lease: LongLivedLease, holder: String, until expiry: Double = 0) throws {
        try engine.writeLeavingGeneration { txn in
            guard let bytes = try txn.get(Self.key(lease)), case var record = try LeaseRecord(decoding: bytes),
                record.holder == holder
            else { return }
            record.expiry = expiry
            record.released = expiry == 0
            try txn.set(Self.key(lease), record.encoded())
        }
    }

    /// Removes `lease`: its operation is finished (completed, cancelled or purged).
    package func clear(_ lease: LongLivedLease) throws {
        try engine.writeLeavingGeneration { txn in try txn.clear(Self.key(lease)) }
    }

    /// How many operations of journal `journal` hold a lease and are still running, counting
    /// up to `bound` at most (a lease can outlive its operation briefly: the header decides).
    static func runningCount(journal: Int64, upTo bound: Int, _ txn: any BackendReadTransaction) throws -> Int {
        let keys = JournalKeys(containerNumber: journal)
        let leases = prefix.appending(journal)
        var range = leases.range
        var count = 0
        while count < bound {
            let pairs = try txn.scan(range, limit: 256)
            for pair in pairs {
                var reader = OrderedKeyReader(pair.key, from: leases.bytes.count)
                guard let header = try txn.get(keys.header(try reader.readString())) else { continue }
                if try JournalHeader(decoding: header).state == .running { count += 1 }
            }
            guard pairs.count == 256, let last = pairs.last else { break }
            range.lowerBound = last.key + [0]
        }
        return count
    }
}
