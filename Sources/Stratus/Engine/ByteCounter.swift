/// A ``ByteSink`` that only counts what would be written: the exact size of an encoder's
/// output, found without writing it (a native string's UTF-8 count is known without a walk).
struct ByteCounter: ByteSink {
    /// The bytes written so far.
    private(set) var count = 0

    mutating func write(_ byte: UInt8) { count += 1 }

    mutating func write(_ value: Int64) { count += 8 }

    mutating func writeVarint(_ value: Int) { count += Self.varintLength(value) }

    mutating func write(_ value: String) {
        let length = value.utf8.count
        count += Self.varintLength(length) + length
    }

    mutating func write(bytes value: some Collection<UInt8>) {
        let length = value.count
        count += Self.varintLength(length) + length
    }

    /// The bytes `ByteSink.writeVarint(_:)` writes for `value` (as `ByteWriter` writes it:
    /// the value's bits as unsigned, seven to a byte).
    static func varintLength(_ value: Int) -> Int {
        var remaining = UInt64(bitPattern: Int64(value)) >> 7
        var length = 1
        while remaining != 0 {
            remaining >>= 7
            length += 1
        }
        return length
    }
}
