/// Where the engine's binary encoders write: ``ByteWriter`` (an array that grows as it is
/// written), ``ByteCounter`` (only counts, so that an output can be sized exactly) and
/// ``FixedByteWriter`` (a buffer of that exact size). One encoder generic over it writes the
/// same bytes to each, so an entry measured by a counter fills its buffer exactly.
protocol ByteSink {
    mutating func write(_ byte: UInt8)
    /// Eight bytes, little-endian.
    mutating func write(_ value: Int64)
    /// A variable-length unsigned integer (LEB128).
    mutating func writeVarint(_ value: Int)
    /// The string's UTF-8 bytes after their count (a varint).
    mutating func write(_ value: String)
    /// The bytes after their count (a varint).
    mutating func write(bytes value: some Collection<UInt8>)
}

extension ByteSink {
    /// Eight bytes, little-endian.
    mutating func write(_ value: UInt64) { write(Int64(bitPattern: value)) }

    /// The value's bits, eight bytes, little-endian.
    mutating func write(_ value: Double) { write(value.bitPattern) }

    /// 0 for `nil`, else 1 and the string.
    mutating func write(optional value: String?) {
        if let value {
            write(UInt8(1))
            write(value)
        } else {
            write(UInt8(0))
        }
    }
}
