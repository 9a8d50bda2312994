import Foundation

/// Reads what a `ByteWriter` wrote out of bytes lent for the length of a call (a backend's
/// buffer during `BackendReadTransaction.scan(_:limit:reverse:lending:)`), without copying
/// them into an array first. Bounds-checked and throwing on damage, as ``ByteReader`` is; it
/// must not outlive the bytes it reads.
struct LentByteReader: ByteReading {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func readByte() throws -> UInt8 {
        guard offset < bytes.count else { throw EngineError.corruptValue }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readInt64() throws -> Int64 {
        guard remaining >= 8 else { throw EngineError.corruptValue }
        defer { offset += 8 }
        return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    mutating func readBytes() throws -> [UInt8] {
        Array(try counted())
    }

    mutating func readString() throws -> String {
        String(decoding: try counted(), as: UTF8.self)
    }

    mutating func readString(unlessEqualTo previous: String) throws -> String? {
        let string = try counted()
        var previous = previous
        let same = previous.withUTF8 { known in
            known.count == string.count
                && (string.isEmpty || memcmp(known.baseAddress!, string.baseAddress!, string.count) == 0)
        }
        return same ? nil : String(decoding: string, as: UTF8.self)
    }

    /// The bytes of a length-prefixed string or byte string, as they lie in the lent buffer.
    mutating func counted() throws -> UnsafeBufferPointer<UInt8> {
        let count = try readVarint()
        guard count <= remaining else { throw EngineError.corruptValue }
        defer { offset += count }
        guard count > 0, let base = bytes.baseAddress else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: (base + offset).assumingMemoryBound(to: UInt8.self), count: count)
    }
}
