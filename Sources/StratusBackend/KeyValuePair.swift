/// One key and its value, as returned by a range scan.
public struct KeyValuePair: Sendable, Hashable {
    /// The key.
    public var key: [UInt8]
    /// The value stored under ``key``.
    public var value: [UInt8]

    /// A pair of `key` and `value`.
    public init(key: [UInt8], value: [UInt8]) {
        self.key = key
        self.value = value
    }
}
