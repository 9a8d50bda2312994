/// Writes ``JSONValue``s as compact JSON: object keys sorted, strings escaped minimally
/// (`"`, `\`, control characters), doubles in Swift's shortest round-trip form (which always
/// has a `.` or an exponent, so a double stays a double when parsed again).
enum JSONSerializer {
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): writeDouble(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (offset, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A finite double in its shortest round-trip form; a non-finite one (which JSON cannot
    /// express, and which the record translator never produces) as `null`.
    private static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(contentsOf: d.description.utf8)
    }

    /// `s` quoted, escaped in one pass over its UTF-8 (runs without an escape copied whole).
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let written: Void? = s.utf8.withContiguousStorageIfAvailable { writeEscaped($0, into: &out) }
        if written == nil {
            Array(s.utf8).withUnsafeBufferPointer { writeEscaped($0, into: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Writes a string given as its UTF-8 bytes, which must be valid UTF-8 (ASCII always is):
    /// the bytes ``writeString(_:into:)`` writes for the same string.
    static func writeString(utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        writeEscaped(utf8, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var start = 0
        var index = 0
        while index < utf8.count {
            // Eight bytes at a time while none of them needs an escape (most strings, whole).
            if index + 8 <= utf8.count,
                !needsEscape(UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = utf8[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
            writeEscape(byte, into: &out)
            start = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    /// Whether one of the eight bytes in `word` is below 0x20, a quote or a backslash (the classic
    /// "has a zero byte" bit tricks: exact as to whether one exists, which is all this asks).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let below = (word &- ones &* 0x20) & ~word & highs != 0
        return below || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }

    private static func writeEscape(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default: writeControl(byte, into: &out)
        }
    }

    private static func writeControl(_ byte: UInt8, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0x0F)])
    }
}
