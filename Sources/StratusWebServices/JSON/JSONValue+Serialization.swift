extension JSONValue {
    /// The value as compact JSON bytes (keys sorted; see ``JSONSerializer``).
    package func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONSerializer.write(self, into: &out)
        return out
    }

    /// The value as compact JSON text.
    package func serializedString() -> String {
        String(decoding: serialized(), as: UTF8.self)
    }
}
