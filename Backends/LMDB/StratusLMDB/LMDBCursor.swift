import StratusCLMDB

/// A cursor of one transaction, open only inside `LMDBTransaction.withCursor`, which closes it.
struct LMDBCursor {
    let pointer: OpaquePointer
    private var keyVal = MDB_val()
    private var dataVal = MDB_val()

    init(pointer: OpaquePointer) { self.pointer = pointer }

    /// The key at the cursor, copied out of the map.
    var key: [UInt8] { keyVal.bytes }
    /// The value at the cursor, copied out of the map.
    var value: [UInt8] { dataVal.bytes }
    /// The key at the cursor in the map: valid until the transaction writes or ends.
    var lentKey: UnsafeRawBufferPointer { keyVal.lent }
    /// The value at the cursor in the map: valid until the transaction writes or ends.
    var lentValue: UnsafeRawBufferPointer { dataVal.lent }

    /// Moves to the first entry at or after `stored` (`MDB_SET_RANGE`).
    mutating func seek(_ stored: [UInt8]) -> Int32 {
        stored.withMDBVal { key in
            let rc = mdb_cursor_get(pointer, &key, &dataVal, MDB_SET_RANGE)
            keyVal = key
            return rc
        }
    }

    /// Moves by `op` (`MDB_NEXT`, `MDB_PREV`, `MDB_LAST`).
    mutating func move(_ op: MDB_cursor_op) -> Int32 {
        mdb_cursor_get(pointer, &keyVal, &dataVal, op)
    }
}

extension MDB_val {
    /// The bytes the value points at, in the map.
    var lent: UnsafeRawBufferPointer {
        guard mv_size > 0, let data = mv_data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: mv_size)
    }

    /// The bytes the value points at, copied.
    var bytes: [UInt8] {
        guard mv_size > 0, let data = mv_data else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: mv_size))
    }
}

extension Array where Element == UInt8 {
    /// Runs `body` with an `MDB_val` pointing at the array's bytes (LMDB only reads them).
    func withMDBVal<R>(_ body: (inout MDB_val) throws -> R) rethrows -> R {
        try withUnsafeBytes { buffer in
            var val = MDB_val(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
            return try body(&val)
        }
    }
}
