/// The `[c]`, `[d]`, `[cd]` modifiers after a comparison operator.
///
/// String equality (`=`, `!=`, `IN`, membership) is always case-insensitive in CloudKit, so
/// ``caseInsensitive`` changes only `BEGINSWITH` and the ordering operators;
/// ``diacriticInsensitive`` applies to every string comparison. `[n]` (normalized) and `[l]`
/// (locale) are accepted and ignored.
public struct PredicateStringOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The option bits.
    public var rawValue: UInt8

    /// Options from their bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `[c]`: ignore case.
    public static let caseInsensitive = PredicateStringOptions(rawValue: 1 << 0)
    /// `[d]`: ignore diacritics ("é" equals "e").
    public static let diacriticInsensitive = PredicateStringOptions(rawValue: 1 << 1)

    /// The modifier as a format string writes it (`[cd]`), or the empty string.
    public var description: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}
