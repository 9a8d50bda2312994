/// Writes JSON straight into bytes — the bytes ``JSONSerializer`` writes for the equivalent
/// ``JSONValue`` — for answers too large to build as a tree first: a page of 2,000 records is
/// about 30,000 small objects, each a dictionary to hash, sort, serialize and free.
///
/// Members are written in the order given, which must be ascending by key (as the serializer
/// sorts them); debug builds check it.
struct JSONWriter {
    /// What was written.
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a `,` before it.
    private var needsSeparator = false
    /// The last key of the object being written (debug builds check the order).
    private var lastKey: String?

    /// A writer whose buffer starts at `capacity` bytes.
    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `value` as the serializer does.
    mutating func value(_ value: JSONValue) {
        JSONSerializer.write(value, into: &bytes)
    }

    /// Writes a string.
    mutating func string(_ string: String) {
        JSONSerializer.writeString(string, into: &bytes)
    }

    /// Writes an integer.
    mutating func integer(_ integer: Int64) {
        JSONSerializer.write(.integer(integer), into: &bytes)
    }

    /// Writes `true` or `false`.
    mutating func bool(_ bool: Bool) {
        bytes.append(contentsOf: bool ? Self.trueBytes : Self.falseBytes)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    /// Writes an object whose members `body` writes with ``member(_:_:)``.
    mutating func object(_ body: (inout JSONWriter) -> Void) {
        let (outerSeparator, outerKey) = (needsSeparator, lastKey)
        (needsSeparator, lastKey) = (false, nil)
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        (needsSeparator, lastKey) = (outerSeparator, outerKey)
    }

    /// Writes the member `key` of the object being written, its value written by `body`.
    mutating func member(_ key: String, _ body: (inout JSONWriter) -> Void) {
        assert(lastKey.map { $0 < key } ?? true, "JSONWriter: member \(key) after \(lastKey ?? "")")
        lastKey = key
        separate()
        string(key)
        bytes.append(UInt8(ascii: ":"))
        body(&self)
    }

    /// Writes an array of `elements`, each written by `body`.
    mutating func array<Elements: Sequence>(
        _ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void
    ) {
        let (outerSeparator, outerKey) = (needsSeparator, lastKey)
        needsSeparator = false
        bytes.append(UInt8(ascii: "["))
        for element in elements {
            separate()
            body(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        (needsSeparator, lastKey) = (outerSeparator, outerKey)
    }

    private mutating func separate() {
        if needsSeparator { bytes.append(UInt8(ascii: ",")) }
        needsSeparator = true
    }
}
