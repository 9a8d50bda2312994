import Foundation
import StratusBackend

/// Builds order-preserving keys from typed elements, in the style of FoundationDB's tuple
/// layer: comparing two encoded keys byte by byte orders them element by element.
///
/// Encodings (decision 0002):
/// - string: `0x02`, UTF-8 bytes with `0x00` escaped as `0x00 0xFF`, then `0x00`;
/// - bytes: `0x01`, the same escaping, then `0x00`;
/// - integer: `0x15`, 8 bytes big-endian with the sign bit flipped;
/// - double: `0x21`, 8 bytes big-endian, sign-flipped so that the byte order is numeric order;
/// - null: `0x00`.
struct OrderedKey: Hashable, Sendable {
    private(set) var bytes: [UInt8]

    init() { bytes = [] }
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static let nullTag: UInt8 = 0x00
    static let bytesTag: UInt8 = 0x01
    static let stringTag: UInt8 = 0x02
    static let integerTag: UInt8 = 0x15
    static let doubleTag: UInt8 = 0x21

    func appending(_ value: String) -> OrderedKey {
        var copy = OrderedKey(capacity: bytes.count + value.utf8.count + 2)
        copy.bytes.append(contentsOf: bytes)
        copy.append(value)
        return copy
    }

    func appending(_ value: Int64) -> OrderedKey {
        var copy = OrderedKey(capacity: bytes.count + 9)
        copy.bytes.append(contentsOf: bytes)
        copy.append(value)
        return copy
    }

    /// An empty key with room for `capacity` bytes (keys are built by appending elements).
    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    func appending(tag: UInt8) -> OrderedKey {
        var copy = self
        copy.bytes.append(tag)
        return copy
    }

    mutating func append(_ value: String) {
        bytes.append(OrderedKey.stringTag)
        // A name without a zero byte, the usual case, is copied in one move: byte by byte
        // through `utf8`, building a save's keys cost about 700 instructions per record.
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(0) else { return false }
            bytes.append(contentsOf: utf8)
            bytes.append(0)
            return true
        }
        if copied != true { appendEscaped(value.utf8) }
    }

    mutating func append(bytes value: some Sequence<UInt8>) {
        bytes.append(OrderedKey.bytesTag)
        appendEscaped(value)
    }

    mutating func append(_ value: Int64) {
        bytes.append(OrderedKey.integerTag)
        let flipped = UInt64(bitPattern: value) ^ (1 << 63)
        appendBigEndian(flipped)
    }

    mutating func append(double value: Double) {
        bytes.append(OrderedKey.doubleTag)
        let bits = value.bitPattern
        let ordered = (bits & (1 << 63)) != 0 ? ~bits : bits | (1 << 63)
        appendBigEndian(ordered)
    }

    mutating func appendNull() { bytes.append(OrderedKey.nullTag) }

    /// Appends a sub-space tag byte.
    mutating func append(tag: UInt8) { bytes.append(tag) }

    mutating func append(raw: [UInt8]) { bytes.append(contentsOf: raw) }

    private mutating func appendEscaped(_ value: some Sequence<UInt8>) {
        for byte in value {
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
        }
        bytes.append(0)
    }

    /// The eight bytes of `value`, most significant first, appended in one move (byte by byte,
    /// each append checks the array's uniqueness and capacity again).
    private mutating func appendBigEndian(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Every key that starts with this one.
    var range: KeyRangeValue { KeyRangeValue(prefix: bytes) }
}

/// A key range in the engine (a thin alias keeping `StratusBackend` out of most files).
typealias KeyRangeValue = KeyRange

/// Reads the elements of an `OrderedKey` back.
struct OrderedKeyReader {
    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], from offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func readString() throws -> String {
        guard offset < bytes.count, bytes[offset] == OrderedKey.stringTag else {
            throw EngineError.corruptKey
        }
        offset += 1
        return String(decoding: try readEscaped(), as: UTF8.self)
    }

    mutating func readBytes() throws -> [UInt8] {
        guard offset < bytes.count, bytes[offset] == OrderedKey.bytesTag else {
            throw EngineError.corruptKey
        }
        offset += 1
        return try readEscaped()
    }

    mutating func readInteger() throws -> Int64 {
        let start = offset
        defer { offset = start + 9 }
        return try bytes.withUnsafeBytes { try Self.integer(in: $0, at: start) }
    }

    /// The integer element at `offset` of the key `bytes` (lent by a scan).
    static func integer(in bytes: UnsafeRawBufferPointer, at offset: Int) throws -> Int64 {
        guard offset >= 0, offset + 9 <= bytes.count, bytes[offset] == OrderedKey.integerTag else {
            throw EngineError.corruptKey
        }
        var value: UInt64 = 0
        for i in 1...8 { value = value << 8 | UInt64(bytes[offset + i]) }
        return Int64(bitPattern: value ^ (1 << 63))
    }

    mutating func skipElement() throws {
        guard offset < bytes.count else { throw EngineError.corruptKey }
        switch bytes[offset] {
        case OrderedKey.nullTag: offset += 1
        case OrderedKey.stringTag, OrderedKey.bytesTag:
            offset += 1
            _ = try readEscaped()
        case OrderedKey.integerTag, OrderedKey.doubleTag: offset += 9
        default: offset += 1
        }
    }

    private mutating func readEscaped() throws -> [UInt8] {
        var out: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == 0 {
                if offset + 1 < bytes.count, bytes[offset + 1] == 0xFF {
                    out.append(0)
                    offset += 2
                    continue
                }
                offset += 1
                return out
            }
            out.append(byte)
            offset += 1
        }
        throw EngineError.corruptKey
    }
}
