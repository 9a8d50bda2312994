/// The aggregate modifier in front of a comparison: `ANY`/`SOME`, `ALL`, or none.
///
/// `NONE list = v` is parsed as `NOT (ANY list = v)`, as Foundation does.
public enum PredicateQuantifier: String, Sendable, Hashable, CustomStringConvertible {
    /// No modifier: the left side is compared as a whole.
    case direct = ""
    /// `ANY` or `SOME`: true when some element of the left side's list satisfies the
    /// comparison.
    case any = "ANY"
    /// `ALL` (rejected by CloudKit): true when every element satisfies it.
    case all = "ALL"

    /// The keyword as a format string writes it (empty for ``direct``).
    public var description: String { rawValue }
}
