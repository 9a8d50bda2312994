/// Writes JSON straight into bytes — the bytes ``JSONSerializer`` writes for the equivalent
/// ``JSONValue`` — for answers too large to build as a tree first: a page of 2,000 records is
/// about 30,000 small objects, each a dictionary to hash, sort, serialize and free.
///
/// Members are written in the order given, which must be ascending by key (as the serializer
/// sorts them); debug builds check it. The answer's own keys are static strings, copied as
/// they are (none needs escaping); field names, which come from the store, are escaped.
package struct JSONWriter {
    /// What was written.
    package private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a `,` before it.
    private var needsSeparator = false
    #if DEBUG
        /// The last key of the object being written (debug builds check the order).
        private var lastKey: String?
    #endif

    /// A writer whose buffer starts at `capacity` bytes.
    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `value` as the serializer does.
    package mutating func value(_ value: JSONValue) {
        JSONSerializer.write(value, into: &bytes)
    }

    /// Writes a string.
    package mutating func string(_ string: String) {
        JSONSerializer.writeString(string, into: &bytes)
    }

    /// Writes an integer, as the serializer does (decimal digits, `-` when negative).
    package mutating func integer(_ integer: Int64) {
        Self.writeInteger(integer, into: &bytes)
    }

    /// Appends `integer`'s decimal digits (and `-` when negative) to `bytes`, without a `String`.
    package static func writeInteger(_ integer: Int64, into bytes: inout [UInt8]) {
        guard integer != .min else { return bytes.append(contentsOf: String(integer).utf8) }
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes, more than the 19 needed
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ bool: Bool) {
        bytes.append(contentsOf: bool ? Self.trueBytes : Self.falseBytes)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    /// Writes an object whose members `body` writes with ``member(_:_:)`` and ``field(_:_:)``.
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        let outerSeparator = needsSeparator
        needsSeparator = false
        #if DEBUG
            let outerKey = lastKey
            lastKey = nil
        #endif
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsSeparator = outerSeparator
        #if DEBUG
            lastKey = outerKey
        #endif
    }

    /// Writes the member `key` (one of the answer's own keys: plain ASCII, nothing to escape)
    /// of the object being written, its value written by `body`.
    package mutating func member(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
        checkOrder(key.description)
        assert(!key.description.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: Self.quoteColon)
        body(&self)
    }

    /// Writes the member named `name` (a field's name, escaped as any string), its value
    /// written by `body`.
    package mutating func field(_ name: String, _ body: (inout JSONWriter) -> Void) {
        checkOrder(name)
        separate()
        string(name)
        bytes.append(UInt8(ascii: ":"))
        body(&self)
    }

    private static let quoteColon: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: ":")]

    /// Debug builds: `key` sorts after the object's previous key, as the serializer's order.
    private mutating func checkOrder(_ key: @autoclosure () -> String) {
        #if DEBUG
            let key = key()
            assert(lastKey.map { $0 < key } ?? true, "JSONWriter: member \(key) after \(lastKey ?? "")")
            lastKey = key
        #endif
    }

    /// Writes an array of `elements`, each written by `body`.
    ///
    /// Inlinable so that the server's calls, from another module, are specialized for their
    /// sequence as they were when both were one module.
    @inlinable
    package mutating func array<Elements: Sequence>(
        _ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void
    ) {
        let outerSeparator = openArray()
        for element in elements {
            separate()
            body(&self, element)
        }
        closeArray(outerSeparator)
    }

    /// Writes `[`; returns whether the enclosing container needs a separator after it.
    @usableFromInline
    mutating func openArray() -> Bool {
        let outerSeparator = needsSeparator
        needsSeparator = false
        bytes.append(UInt8(ascii: "["))
        return outerSeparator
    }

    /// Writes `]` and restores the enclosing container's separator state.
    @usableFromInline
    mutating func closeArray(_ outerSeparator: Bool) {
        bytes.append(UInt8(ascii: "]"))
        needsSeparator = outerSeparator
    }

    /// Writes `,` before every member or element but the first.
    @usableFromInline
    mutating func separate() {
        if needsSeparator { bytes.append(UInt8(ascii: ",")) }
        needsSeparator = true
    }
}
