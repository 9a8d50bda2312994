import Foundation
import StratusBenchCLMDB

/// LMDB through its C API, with the environment flags of the backend's default durability
/// (`MDB_NOTLS`, nothing that weakens syncing: the commit syncs data and meta pages) and its
/// one unnamed database. `mdb_put` of every row in one write transaction and a durable
/// commit, then `mdb_get` of every row in one read-only transaction, each value copied out.
/// The map is made large enough up front, so the baseline never pays for growth.
struct LMDBRawBaseline {
    /// The environment's directory; created before and removed after the run.
    let path: String

    /// A failure of the C API, with LMDB's message.
    struct Failure: Error, CustomStringConvertible {
        /// What failed.
        var description: String
    }

    /// Runs the puts and the gets in a new environment and returns their timings.
    func run(rows: Int, valueBytes: Int) throws -> RawBaseline {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var created: OpaquePointer?
        try check(mdb_env_create(&created), "mdb_env_create")
        guard let env = created else { throw Failure(description: "LMDB raw baseline: no environment") }
        defer { mdb_env_close(env) }
        try check(mdb_env_set_mapsize(env, max(64 << 20, rows * (valueBytes + 64) * 4)), "mdb_env_set_mapsize")
        try check(mdb_env_open(env, path, UInt32(MDB_NOTLS), 0o644), "mdb_env_open")

        let keys = (0..<rows).map(RawData.key)
        let values = (0..<rows).map { RawData.value($0, bytes: valueBytes) }
        var dbi: MDB_dbi = 0
        let inserting = try Timing.sample { dbi = try put(env, keys: keys, values: values) }
        var bytesRead = 0
        let reading = try Timing.sample { bytesRead = try get(env, dbi, keys: keys) }
        guard bytesRead == rows * valueBytes else {
            throw Failure(description: "LMDB raw baseline: read \(bytesRead) bytes, expected \(rows * valueBytes)")
        }
        return RawBaseline(
            rows: rows, insert: inserting, read: reading, insertMethod: "mdb_put per key",
            readMethod: "mdb_get per key")
    }

    /// Puts every row in one write transaction and commits it; returns the database handle.
    private func put(_ env: OpaquePointer, keys: [[UInt8]], values: [[UInt8]]) throws -> MDB_dbi {
        var begun: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &begun), "mdb_txn_begin")
        guard let txn = begun else { throw Failure(description: "LMDB raw baseline: no transaction") }
        var dbi: MDB_dbi = 0
        do {
            try check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open")
            for (key, value) in zip(keys, values) {
                let rc = key.withUnsafeBytes { keyBytes in
                    value.withUnsafeBytes { valueBytes in
                        var k = MDB_val(
                            mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                        var v = MDB_val(
                            mv_size: valueBytes.count,
                            mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                        return mdb_put(txn, dbi, &k, &v, 0)
                    }
                }
                try check(rc, "mdb_put")
            }
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
        return dbi
    }

    /// Gets every key in one read-only transaction, copying each value out, as a caller must;
    /// returns the bytes read.
    private func get(_ env: OpaquePointer, _ dbi: MDB_dbi, keys: [[UInt8]]) throws -> Int {
        var begun: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &begun), "mdb_txn_begin (read-only)")
        guard let txn = begun else { throw Failure(description: "LMDB raw baseline: no read transaction") }
        defer { mdb_txn_abort(txn) }
        var total = 0
        for key in keys {
            var v = MDB_val()
            let rc = key.withUnsafeBytes { keyBytes in
                var k = MDB_val(
                    mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                return mdb_get(txn, dbi, &k, &v)
            }
            try check(rc, "mdb_get")
            let value = [UInt8](UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
            total += value.count
        }
        return total
    }

    private func check(_ rc: Int32, _ what: String) throws {
        guard rc == MDB_SUCCESS else {
            throw Failure(description: "LMDB raw baseline: \(what): \(String(cString: mdb_strerror(rc)))")
        }
    }
}
