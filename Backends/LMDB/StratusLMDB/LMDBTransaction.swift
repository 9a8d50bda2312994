import StratusBackend
import StratusCLMDB

/// One LMDB transaction as the SPI sees it, valid only inside the body it is passed to.
///
/// The backend begins it, passes it to one body and then ends it exactly once (commit or
/// abort); afterwards every call throws. Any failing `mdb_*` call is remembered in
/// ``failure``: LMDB leaves such a transaction unusable, so the backend aborts it even when the
/// body swallowed the error.
final class LMDBTransaction: BackendWriteTransaction {
    let environment: LMDBEnvironment
    let writable: Bool
    private(set) var txn: OpaquePointer?
    /// The thread the transaction belongs to (an LMDB write transaction must stay on it).
    private let owner = CurrentThread.id
    /// The first `mdb_*` failure inside the body, if any.
    private(set) var failure: LMDBStatus?
    /// Bytes of keys and values this transaction read from the map (see
    /// ``LMDBMappedPages/noteRead(_:)``).
    private var bytesRead = 0

    init(environment: LMDBEnvironment, txn: OpaquePointer, writable: Bool) {
        self.environment = environment
        self.txn = txn
        self.writable = writable
    }

    /// Aborts the transaction if it is still open; safe to call more than once.
    func abort() {
        guard let txn else { return }
        environment.mappedPages.noteRead(bytesRead)
        self.txn = nil
        mdb_txn_abort(txn)
    }

    /// Commits the transaction; it is ended (freed by LMDB) whatever the outcome.
    func commit() throws {
        guard let txn else { throw BackendError(.internal, "LMDB: commit of an ended transaction") }
        environment.mappedPages.noteRead(bytesRead)
        self.txn = nil
        try LMDBStatus.check(mdb_txn_commit(txn), "commit")
    }

    // MARK: Reads

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        let layout = environment.layout
        guard let stored = try getStored(layout.storedKey(key)) else { return nil }
        guard layout.isLong(key) else { return stored }
        let suffix = layout.suffix(of: key)
        return try LMDBBucket.decode(stored).first { $0.suffix == suffix }?.value
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        var result: [KeyValuePair] = []
        try scan(range, limit: limit, reverse: reverse) { key, value in
            result.append(KeyValuePair(key: Array(key), value: Array(value)))
        }
        return result
    }

    /// Lends each pair from the map (a short key's entry) or from its decoded bucket (a long
    /// key's); the body never writes, so the map's pages stay valid while it runs.
    func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard !range.isEmpty, limit > 0 else { return }
        var lent = 0
        try range.lowerBound.withUnsafeBytes { lower in
            try range.upperBound.withUnsafeBytes { upper in
                try withCursor { (cursor: inout LMDBCursor) in
                    var rc = cursor.seek(environment.layout.seekKey(reverse ? range.upperBound : range.lowerBound))
                    if reverse && rc == MDB_NOTFOUND { rc = cursor.move(MDB_LAST) }
                    while rc == MDB_SUCCESS {
                        let done = try environment.layout.withPairs(
                            stored: cursor.lentKey, value: cursor.lentValue, reverse: reverse
                        ) { key, value in
                            bytesRead += key.count + value.count
                            let beforeLower = KeyRange.less(key, lower)
                            let beforeUpper = KeyRange.less(key, upper)
                            if reverse ? beforeLower : !beforeUpper { return true }
                            guard beforeUpper && !beforeLower else { return false }
                            try body(key, value)
                            lent += 1
                            return lent == limit
                        }
                        if done { return }
                        rc = cursor.move(reverse ? MDB_PREV : MDB_NEXT)
                    }
                    if rc != MDB_NOTFOUND { try fail(rc, "move a cursor") }
                }
            }
        }
    }

    // MARK: Writes

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try checkWritable()
        let layout = environment.layout
        let stored = layout.storedKey(key)
        guard layout.isLong(key) else { return try putStored(stored, value) }
        let entries = try getStored(stored).map(LMDBBucket.decode) ?? []
        try putStored(stored, try LMDBBucket.encode(LMDBBucket.setting(layout.suffix(of: key), value, in: entries)))
    }

    func clear(_ key: [UInt8]) throws {
        try checkWritable()
        let layout = environment.layout
        let stored = layout.storedKey(key)
        guard layout.isLong(key) else { return try deleteStored(stored) }
        guard let bucket = try getStored(stored) else { return }
        let suffix = layout.suffix(of: key)
        let entries = try LMDBBucket.decode(bucket)
        let kept = entries.filter { $0.suffix != suffix }
        guard kept.count != entries.count else { return }
        try kept.isEmpty ? deleteStored(stored) : putStored(stored, try LMDBBucket.encode(kept))
    }

    func clearRange(_ range: KeyRange) throws {
        try checkWritable()
        guard !range.isEmpty else { return }
        let layout = environment.layout
        var resume = layout.seekKey(range.lowerBound)
        var skip: [UInt8]?
        var finished = false
        while !finished {
            // Collect a batch of changes with a cursor, then apply them without it.
            var changes: [(stored: [UInt8], bucket: [LMDBBucket.Entry]?)] = []
            try withCursor { (cursor: inout LMDBCursor) in
                var rc = cursor.seek(resume)
                while rc == MDB_SUCCESS && changes.count < 512 {
                    let stored = cursor.key
                    resume = stored
                    if stored != skip {
                        let pairs = try layout.pairs(stored: stored, value: cursor.value)
                        if pairs.contains(where: { !KeyRange.less($0.key, range.upperBound) }) { finished = true }
                        if pairs.contains(where: { range.contains($0.key) }) {
                            if layout.isBucket(stored) {
                                let entries = try LMDBBucket.decode(cursor.value)
                                changes.append((stored, entries.filter { !range.contains(layout.keyOf(stored, $0)) }))
                            } else {
                                changes.append((stored, nil))
                            }
                        }
                        if finished { return }
                    }
                    rc = cursor.move(MDB_NEXT)
                }
                if rc == MDB_NOTFOUND {
                    finished = true
                } else if rc != MDB_SUCCESS {
                    try fail(rc, "move a cursor")
                }
            }
            for change in changes {
                if let entries = change.bucket, !entries.isEmpty {
                    try putStored(change.stored, try LMDBBucket.encode(entries))
                } else {
                    try deleteStored(change.stored)
                }
            }
            skip = resume
        }
    }

    // MARK: mdb_* calls

    private func live() throws -> OpaquePointer {
        guard let txn else { throw BackendError(.internal, "LMDB: a transaction was used after its body returned") }
        if writable && owner != CurrentThread.id {
            throw BackendError(.internal, "LMDB: a write transaction was used from another thread")
        }
        return txn
    }

    private func checkWritable() throws {
        guard writable else { throw BackendError(.readOnly, "LMDB: a write inside a read transaction") }
    }

    /// Records `rc` as the transaction's failure and throws its error.
    private func fail(_ rc: Int32, _ action: String) throws -> Never {
        let status = LMDBStatus(rc)
        if failure == nil { failure = status }
        throw status.error(action)
    }

    private func getStored(_ stored: [UInt8]) throws -> [UInt8]? {
        let txn = try live()
        var data = MDB_val()
        let rc = stored.withMDBVal { key in mdb_get(txn, environment.dbi, &key, &data) }
        if rc == MDB_NOTFOUND { return nil }
        if rc != MDB_SUCCESS { try fail(rc, "get") }
        bytesRead += stored.count + data.mv_size
        return data.bytes
    }

    /// The largest value LMDB stores (`MAXDATASIZE`, 4 GiB - 1 bytes); larger `mdb_put`s
    /// fail with `EINVAL`.
    static let maximumValueSize = Int(UInt32.max)

    /// Throws ``BackendError/Code-swift.struct/invalidArgument`` when `size` bytes of `what`
    /// are more than ``maximumValueSize``, before anything is written or truncated.
    static func checkValueSize(_ size: Int, _ what: String) throws {
        guard size > maximumValueSize else { return }
        throw BackendError(
            .invalidArgument, "LMDB: \(what) of \(size) bytes is larger than LMDB's \(maximumValueSize)-byte limit")
    }

    private func putStored(_ stored: [UInt8], _ value: [UInt8]) throws {
        try Self.checkValueSize(value.count, "a value")
        let txn = try live()
        let rc = stored.withMDBVal { key in
            value.withMDBVal { data in mdb_put(txn, environment.dbi, &key, &data, 0) }
        }
        if rc != MDB_SUCCESS { try fail(rc, "put") }
    }

    private func deleteStored(_ stored: [UInt8]) throws {
        let txn = try live()
        let rc = stored.withMDBVal { key in mdb_del(txn, environment.dbi, &key, nil) }
        if rc != MDB_SUCCESS && rc != MDB_NOTFOUND { try fail(rc, "delete") }
    }

    /// Runs `body` with a cursor that is closed when it returns.
    private func withCursor(_ body: (inout LMDBCursor) throws -> Void) throws {
        let txn = try live()
        var opened: OpaquePointer?
        let rc = mdb_cursor_open(txn, environment.dbi, &opened)
        guard rc == MDB_SUCCESS, let pointer = opened else { try fail(rc, "open a cursor") }
        defer { mdb_cursor_close(pointer) }
        var cursor = LMDBCursor(pointer: pointer)
        try body(&cursor)
    }
}

extension LMDBKeyLayout {
    /// The full SPI key of bucket entry `entry` stored under the bucket key `stored`.
    func keyOf(_ stored: [UInt8], _ entry: LMDBBucket.Entry) -> [UInt8] {
        Array(stored[1..<(shortLimit + 1)]) + entry.suffix
    }
}
