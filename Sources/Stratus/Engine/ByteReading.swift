import Foundation

/// What the engine's decoders read from: ``ByteReader`` over an array, or ``LentByteReader``
/// over bytes a backend lends for the length of a call
/// (`BackendReadTransaction.scan(_:limit:reverse:lending:)`). A decoder generic over it is
/// specialized for each, so a drain decodes its records straight out of the backend's buffers.
protocol ByteReading {
    /// The bytes not read yet.
    var remaining: Int { get }
    mutating func readByte() throws -> UInt8
    /// Eight bytes, little-endian.
    mutating func readInt64() throws -> Int64
    /// A length-prefixed byte string, copied.
    mutating func readBytes() throws -> [UInt8]
    /// A string written by `ByteWriter.write(_: String)`.
    mutating func readString() throws -> String
    /// Reads a string written by `ByteWriter.write(_: String)`: `nil` when its bytes are those
    /// of `previous` (nothing allocated), else the new string. Unlike `readString(reusing:)`,
    /// it leaves `previous` alone, so an array holding it stays shared.
    mutating func readString(unlessEqualTo previous: String) throws -> String?
}

extension ByteReading {
    mutating func readDouble() throws -> Double { Double(bitPattern: UInt64(bitPattern: try readInt64())) }

    /// A variable-length unsigned integer (LEB128).
    mutating func readVarint() throws -> Int {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
            guard shift < 64 else { throw EngineError.corruptValue }
        }
        guard result <= UInt64(Int.max) else { throw EngineError.corruptValue }
        return Int(result)
    }

    mutating func readOptionalString() throws -> String? {
        try readByte() == 0 ? nil : try readString()
    }

    /// Reads a string written by `ByteWriter.write(_: String)`; when its bytes are those of
    /// `previous`, returns `previous` itself (shared storage, no allocation) and otherwise
    /// stores the new string there. For strings that repeat from row to row of a batch.
    mutating func readString(reusing previous: inout String) throws -> String {
        var changed = false
        return try readString(reusing: &previous, changed: &changed)
    }

    /// `readString(reusing:)`, telling in `changed` whether `previous` was replaced.
    mutating func readString(reusing previous: inout String, changed: inout Bool) throws -> String {
        if let new = try readString(unlessEqualTo: previous) {
            previous = new
            changed = true
        } else {
            changed = false
        }
        return previous
    }
}
