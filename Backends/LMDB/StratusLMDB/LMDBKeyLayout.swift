import StratusBackend

/// How SPI keys of any length become LMDB keys (at most `mdb_env_get_maxkeysize`, 511 bytes by
/// default, and never empty) without changing their order.
///
/// - A key of at most ``shortLimit`` bytes is stored as `0x01` followed by the key.
/// - A longer key lives in a **bucket**: the LMDB key `0x01`, the key's first ``shortLimit``
///   bytes, `0x00` (exactly the maximum key size, so never a short key). The bucket's value
///   holds every long key with that prefix, sorted, each with its value.
///
/// A bucket sorts right after the short key equal to its prefix and before every other short
/// key greater than it, which is where its long keys belong in unsigned byte order. The engine's
/// keys are short by design (decision 0002); buckets keep longer keys correct, at the cost of
/// rewriting the bucket on every change to one of its keys.
struct LMDBKeyLayout: Sendable {
    /// The longest SPI key stored directly: the maximum LMDB key size minus two.
    let shortLimit: Int

    /// A layout for an environment whose maximum key size is `maxKeySize`.
    init(maxKeySize: Int) { shortLimit = maxKeySize - 2 }

    /// Whether `key` lives in a bucket.
    func isLong(_ key: [UInt8]) -> Bool { key.count > shortLimit }

    /// The LMDB key of a short `key`, or of the bucket holding a long one.
    func storedKey(_ key: [UInt8]) -> [UInt8] {
        guard isLong(key) else { return [0x01] + key }
        return [0x01] + key[..<shortLimit] + [0x00]
    }

    /// The LMDB key to position a cursor at (`MDB_SET_RANGE`) for a range bound: nothing
    /// stored before it can hold a key at or after `bound`.
    func seekKey(_ bound: [UInt8]) -> [UInt8] { storedKey(bound) }

    /// Whether the LMDB key `stored` is a bucket.
    func isBucket(_ stored: [UInt8]) -> Bool { stored.count == shortLimit + 2 }

    /// The SPI pairs an LMDB entry holds, in ascending key order.
    func pairs(stored: [UInt8], value: [UInt8]) throws -> [KeyValuePair] {
        guard stored.first == 0x01 else {
            throw BackendError(.corrupted, "LMDB: a key outside the Stratus key space")
        }
        guard isBucket(stored) else { return [KeyValuePair(key: Array(stored.dropFirst()), value: value)] }
        let prefix = stored[1..<(shortLimit + 1)]
        return try LMDBBucket.decode(value).map { KeyValuePair(key: prefix + $0.suffix, value: $0.value) }
    }

    /// Calls `body` with each SPI pair the LMDB entry `stored` holds, in ascending key order
    /// or descending when `reverse`, until it returns `true`; whether it did. A short key's
    /// pair is lent as it is in the map; a bucket's are decoded.
    func withPairs(
        stored: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, reverse: Bool,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        guard stored.first == 0x01 else {
            throw BackendError(.corrupted, "LMDB: a key outside the Stratus key space")
        }
        guard stored.count == shortLimit + 2 else {
            return try body(UnsafeRawBufferPointer(rebasing: stored.dropFirst()), value)
        }
        var pairs = try pairs(stored: Array(stored), value: Array(value))
        if reverse { pairs.reverse() }
        for pair in pairs {
            let stop = try pair.key.withUnsafeBytes { key in try pair.value.withUnsafeBytes { try body(key, $0) } }
            if stop { return true }
        }
        return false
    }

    /// The bucket entry of a long `key`: what follows its stored prefix.
    func suffix(of key: [UInt8]) -> [UInt8] { Array(key[shortLimit...]) }
}

/// The value of a bucket: the long keys sharing one prefix, as (suffix, value) entries sorted by
/// suffix, each as a 4-byte big-endian length and bytes, suffix then value.
enum LMDBBucket {
    /// One long key of a bucket: the bytes after the shared prefix, and its value.
    struct Entry {
        var suffix: [UInt8]
        var value: [UInt8]
    }

    /// The bucket's value; ``BackendError/Code-swift.struct/invalidArgument`` when it would
    /// be larger than an LMDB value may be (``LMDBTransaction/maximumValueSize``), and so when
    /// any of its lengths would not fit its 4-byte field.
    static func encode(_ entries: [Entry]) throws -> [UInt8] {
        let size = entries.reduce(0) { $0 + 8 + $1.suffix.count + $1.value.count }
        try LMDBTransaction.checkValueSize(size, "a long-key bucket")
        var out: [UInt8] = []
        out.reserveCapacity(size)
        for entry in entries {
            appendLength(entry.suffix.count, to: &out)
            out += entry.suffix
            appendLength(entry.value.count, to: &out)
            out += entry.value
        }
        return out
    }

    static func decode(_ bytes: [UInt8]) throws -> [Entry] {
        var entries: [Entry] = []
        var index = 0
        func field() throws -> [UInt8] {
            guard bytes.count - index >= 4 else { throw damaged }
            let length = bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
            index += 4
            guard bytes.count - index >= length else { throw damaged }
            defer { index += length }
            return Array(bytes[index..<index + length])
        }
        while index < bytes.count {
            entries.append(Entry(suffix: try field(), value: try field()))
        }
        return entries
    }

    /// `entries` with `suffix` set to `value` (inserted in order, or replaced).
    static func setting(_ suffix: [UInt8], _ value: [UInt8], in entries: [Entry]) -> [Entry] {
        var entries = entries
        let index = entries.firstIndex { !KeyRange.less($0.suffix, suffix) } ?? entries.endIndex
        if index < entries.endIndex && entries[index].suffix == suffix {
            entries[index].value = value
        } else {
            entries.insert(Entry(suffix: suffix, value: value), at: index)
        }
        return entries
    }

    /// Appends `length`, which ``encode(_:)`` checked fits 4 bytes.
    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        let value = UInt32(length)
        out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static let damaged = BackendError(.corrupted, "LMDB: a long-key bucket is damaged")
}
