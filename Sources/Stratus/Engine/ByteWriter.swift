import Foundation

/// Writes the engine's compact binary values (record rows, zone rows, tokens, …).
struct ByteWriter: ByteSink {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func write(_ byte: UInt8) { bytes.append(byte) }

    /// Eight bytes, little-endian, appended in one move.
    mutating func write(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A variable-length unsigned integer (LEB128).
    mutating func writeVarint(_ value: Int) {
        var v = UInt64(value)
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func write(_ value: String) {
        // No intermediate array: a native string's UTF-8 count is known without a walk.
        writeVarint(value.utf8.count)
        let copied: Void? = value.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: value.utf8) }
    }

    mutating func write(bytes value: some Collection<UInt8>) {
        writeVarint(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func writeRaw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }
}

/// Reads what a `ByteWriter` wrote; every read is bounds-checked and throws on damage.
struct ByteReader: ByteReading {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func readByte() throws -> UInt8 {
        guard offset < bytes.count else { throw EngineError.corruptValue }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readInt64() throws -> Int64 {
        guard offset + 8 <= bytes.count else { throw EngineError.corruptValue }
        var v: UInt64 = 0
        for i in (0..<8).reversed() { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return Int64(bitPattern: v)
    }

    mutating func readUInt64() throws -> UInt64 { UInt64(bitPattern: try readInt64()) }

    mutating func readBytes() throws -> [UInt8] {
        let count = try readVarint()
        guard count <= remaining else { throw EngineError.corruptValue }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Moves past `count` bytes.
    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw EngineError.corruptValue }
        offset += count
    }

    /// Moves past a length-prefixed string or byte string.
    mutating func skipCounted() throws { try skip(try readVarint()) }

    mutating func readRaw(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw EngineError.corruptValue }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func readString() throws -> String {
        let count = try readVarint()
        guard count <= remaining else { throw EngineError.corruptValue }
        defer { offset += count }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }

    /// Reads a string written by `ByteWriter.write(_: String)`: `nil` when its bytes are those
    /// of `previous` (nothing allocated), else the new string. Unlike `readString(reusing:)`,
    /// it leaves `previous` alone, so an array holding it stays shared.
    mutating func readString(unlessEqualTo previous: String) throws -> String? {
        let count = try readVarint()
        guard count <= remaining else { throw EngineError.corruptValue }
        defer { offset += count }
        let start = offset
        let matches: Bool = bytes.withUnsafeBufferPointer { buffer -> Bool in
            let known: Bool? = previous.utf8.withContiguousStorageIfAvailable { known -> Bool in
                guard known.count == count else { return false }
                guard count > 0, let mine = known.baseAddress, let theirs = buffer.baseAddress else { return true }
                return memcmp(mine, theirs + start, count) == 0
            }
            return known ?? false
        }
        return matches ? nil : String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
}
