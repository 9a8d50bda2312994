/// A ``ByteSink`` writing into a buffer sized beforehand (by a ``ByteCounter``): each write is
/// a bounds check and a copy, with none of an array's per-append uniqueness and capacity
/// checks. Writing past the end traps. It must not outlive the buffer it writes.
struct FixedByteWriter: ByteSink {
    private let buffer: UnsafeMutableRawBufferPointer
    /// The bytes written so far, from the start of the buffer.
    private(set) var count = 0

    /// A writer filling `buffer` from its start.
    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// `[UInt8]` holding exactly what `encode` writes, where `size` is what a ``ByteCounter``
    /// counted for the same `encode`.
    static func bytes(size: Int, _ encode: (inout FixedByteWriter) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = FixedByteWriter(UnsafeMutableRawBufferPointer(buffer))
            encode(&writer)
            precondition(writer.count == size, "an encoder wrote other bytes than it counted")
            initialized = writer.count
        }
    }

    mutating func write(_ byte: UInt8) {
        precondition(count < buffer.count, "FixedByteWriter: write past the end")
        buffer[count] = byte
        count += 1
    }

    mutating func write(_ value: Int64) {
        precondition(buffer.count - count >= 8, "FixedByteWriter: write past the end")
        buffer.storeBytes(of: value.littleEndian, toByteOffset: count, as: Int64.self)
        count += 8
    }

    mutating func writeVarint(_ value: Int) {
        var remaining = UInt64(bitPattern: Int64(value))
        while remaining >= 0x80 {
            write(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        write(UInt8(remaining))
    }

    mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            writeVarint(utf8.count)
            copy(UnsafeRawBufferPointer(utf8))
        }
    }

    mutating func write(bytes value: some Collection<UInt8>) {
        writeVarint(value.count)
        let copied: Void? = value.withContiguousStorageIfAvailable { copy(UnsafeRawBufferPointer($0)) }
        if copied == nil {
            for byte in value { write(byte) }
        }
    }

    /// Appends `bytes` as they are.
    private mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        precondition(buffer.count - count >= bytes.count, "FixedByteWriter: write past the end")
        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<count + bytes.count]).copyMemory(from: bytes)
        count += bytes.count
    }
}
