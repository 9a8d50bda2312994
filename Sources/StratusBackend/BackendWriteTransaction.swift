/// The writes available inside ``DatabaseBackend/write(_:)``, on top of the reads.
///
/// Writes become visible to the same body at once (read your writes) and to everybody else at
/// commit, all together.
public protocol BackendWriteTransaction: BackendReadTransaction {
    /// Stores `value` under `key`, replacing any previous value. Checked by
    /// `kv.basic.setThenGet`, `kv.basic.overwrite`, `kv.basic.emptyValue`, `kv.basic.binaryData`
    /// and `kv.basic.largeValue`.
    func set(_ key: [UInt8], _ value: [UInt8]) throws

    /// Removes `key`. Removing a key that does not exist is not an error. Checked by
    /// `kv.basic.clear`.
    func clear(_ key: [UInt8]) throws

    /// Removes every key in `range`. Checked by `kv.scan.clearRange`.
    func clearRange(_ range: KeyRange) throws
}
