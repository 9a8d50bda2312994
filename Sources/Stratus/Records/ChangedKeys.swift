/// The names of a record's fields changed since it was fetched or saved, each once, in the
/// order they were first changed.
///
/// Records are filled a handful of fields at a time, for which a scan of the list is the
/// cheapest check for a repeat. A record of thousands of fields (a request's, which a client
/// chooses) would make that scan quadratic: past ``scanLimit`` names, a set beside the list
/// answers the check instead.
struct ChangedKeys: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The names, in the order they were first changed.
    private(set) var names: [String] = []
    /// The same names as a set, once there are more than ``scanLimit``.
    private var lookup: Set<String>? = nil

    /// How many names are scanned before a set is built.
    static let scanLimit = 16

    /// No names.
    init() {}

    /// `names` without their repeats, in order.
    init(_ names: [String]) {
        for name in names { insert(name) }
    }

    /// The names listed, without their repeats.
    init(arrayLiteral names: String...) { self.init(names) }

    /// Whether no field was changed.
    var isEmpty: Bool { names.isEmpty }

    /// Makes room for `capacity` names.
    mutating func reserveCapacity(_ capacity: Int) { names.reserveCapacity(capacity) }

    /// Adds `name` unless it is there already.
    mutating func insert(_ name: String) {
        if let inserted = lookup?.insert(name).inserted {
            if inserted { names.append(name) }
            return
        }
        if names.contains(name) { return }
        names.append(name)
        if names.count > Self.scanLimit { lookup = Set(names) }
    }

    /// Forgets every name.
    mutating func removeAll() {
        names.removeAll()
        lookup = nil
    }

    static func == (lhs: ChangedKeys, rhs: ChangedKeys) -> Bool { lhs.names == rhs.names }
    func hash(into hasher: inout Hasher) { hasher.combine(names) }
}
