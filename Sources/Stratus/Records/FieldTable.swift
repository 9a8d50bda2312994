/// A record's fields: names and values, kept sorted by name in two parallel arrays.
///
/// Records have a handful of fields, read and written whole. Arrays sorted by name cost two
/// allocations where a dictionary costs a table and a hash (SipHash) of every name on every
/// insert and lookup, and they are already in the order the fields are encoded and
/// `allKeys()` lists them, so neither sorts. The names are an array of their own so that a
/// lookup compares names without copying values, and `allKeys()` shares it. Lookups scan
/// small tables and bisect large ones.
///
/// Names are equal as `String`s are (canonical equivalence), as in a dictionary. `String`'s
/// `<` is not a total order consistent with `==` over every string (Swift 6.3: `"e\u{301}"`
/// is neither less than, equal to nor greater than `"\u{E9}a"`), so bisecting is only done
/// over ASCII names with an ASCII name: a table holding a name that is not ASCII (never one
/// the engine stores: field names are ASCII identifiers), or a lookup of such a name, scans
/// with `==` instead, so that each name is still there once and found by every spelling.
///
/// The API is the part of `Dictionary`'s the engine uses, so the two read alike.
struct FieldTable: Sendable, Hashable {
    /// The field names, each once; sorted (`String`'s `<`) when all are ASCII, otherwise in
    /// the order they were inserted in, as near to sorted as `<` allows.
    private(set) var keys: [String]
    /// The values, in the order of their names.
    private(set) var values: [FieldValue]
    /// Whether some name is not ASCII: lookups then scan (see above).
    private var hasNonASCIIName = false

    /// An empty table.
    init() {
        keys = []
        values = []
    }

    /// The same fields, whatever their order (which may differ when a name is not ASCII).
    static func == (lhs: FieldTable, rhs: FieldTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if !lhs.hasNonASCIIName && !rhs.hasNonASCIIName {
            return lhs.keys == rhs.keys && lhs.values == rhs.values
        }
        return zip(lhs.keys, lhs.values).allSatisfy { rhs[$0] == $1 }
    }

    func hash(into hasher: inout Hasher) {
        // Independent of the order, as `==` is.
        var fields = 0
        for (key, value) in self {
            var field = Hasher()
            field.combine(key)
            field.combine(value)
            fields = fields &+ field.finalize()
        }
        hasher.combine(count)
        hasher.combine(fields)
    }

    /// The number of fields.
    var count: Int { keys.count }

    /// Whether there are no fields.
    var isEmpty: Bool { keys.isEmpty }

    /// Makes room for `capacity` fields.
    mutating func reserveCapacity(_ capacity: Int) {
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// The value of field `key`, or `nil`; setting `nil` removes the field.
    subscript(key: String) -> FieldValue? {
        get {
            switch search(key) {
            case .found(let index): return values[index]
            case .insertionPoint: return nil
            }
        }
        set {
            guard let newValue else {
                if case .found(let index) = search(key) { remove(at: index) }
                return
            }
            let keyIsASCII = Self.isASCII(key)
            switch keyIsASCII && !hasNonASCIIName ? searchSorted(key) : search(key) {
            case .found(let index):
                values[index] = newValue
            case .insertionPoint(let index):
                insert(key, newValue, at: index)
                if !keyIsASCII { hasNonASCIIName = true }
            }
        }
    }

    /// Removes the field at `index`.
    private mutating func remove(at index: Int) {
        let removed = keys.remove(at: index)
        values.remove(at: index)
        if hasNonASCIIName && !Self.isASCII(removed) {
            hasNonASCIIName = keys.contains { !Self.isASCII($0) }
            // Names placed among names that are not ASCII may be out of order.
            if !hasNonASCIIName { sortByName() }
        }
    }

    /// Inserts a field at `index`.
    private mutating func insert(_ key: String, _ value: FieldValue, at index: Int) {
        if index == keys.count {
            keys.append(key)
            values.append(value)
        } else {
            keys.insert(key, at: index)
            values.insert(value, at: index)
        }
    }

    /// The fields decoded in the order they were encoded: `keys` and `values` as they are when
    /// `sortedASCII` (the decoder saw every name ASCII and after the one before), else set one
    /// by one like the subscript, so a table read from damaged or foreign bytes still ends up
    /// with each name once. (Over names that are not ASCII, each name after the one before
    /// does not make them distinct: `<` is not transitive there.)
    init(decoded keys: [String], _ values: [FieldValue], sortedASCII: Bool) {
        if sortedASCII && keys.count == values.count {
            self = FieldTable(keys: keys, values: values)
        } else {
            self = FieldTable(assigning: zip(keys, values).map { ($0, $1) })
        }
    }

    /// The fields `assignments` leave, as if each were set in turn with the subscript (a later
    /// value of a name replaces an earlier one, `nil` removes it), without the subscript's
    /// search per field: a request's record may have thousands of fields, in any order, and
    /// inserting each where it belongs would move the fields after it every time.
    init(assigning assignments: [(key: String, value: FieldValue?)]) {
        guard assignments.count > 64 else {
            var table = FieldTable()
            for (key, value) in assignments { table[key] = value }
            self = table
            return
        }
        // Per name: the assignment that inserted it (its spelling, as the subscript keeps
        // the spelling a field was inserted with), the last one (its value), whether present.
        var slots: [String: (inserted: Int, last: Int, present: Bool)] = [:]
        slots.reserveCapacity(assignments.count)
        for (index, assignment) in assignments.enumerated() {
            let present = assignment.value != nil
            if let slot = slots[assignment.key], slot.present {
                slots[assignment.key] = (slot.inserted, index, present)
            } else {
                slots[assignment.key] = (index, index, present)
            }
        }
        var kept = slots.values.filter(\.present).sorted { $0.inserted < $1.inserted }
        let allASCII = kept.allSatisfy { Self.isASCII(assignments[$0.inserted].key) }
        if allASCII { kept.sort { assignments[$0.inserted].key < assignments[$1.inserted].key } }
        self.init(
            keys: kept.map { assignments[$0.inserted].key }, values: kept.compactMap { assignments[$0.last].value })
        hasNonASCIIName = !allASCII
    }

    private init(keys: [String], values: [FieldValue]) {
        self.keys = keys
        self.values = values
    }

    /// A table of the same names with `transform` applied to every value.
    func mapValues(_ transform: (FieldValue) throws -> FieldValue) rethrows -> FieldTable {
        var table = self
        table.values = try values.map(transform)
        return table
    }

    private enum SearchResult {
        case found(Int)
        case insertionPoint(Int)
    }

    /// Sorts the fields by name (when all names are ASCII, so that `<` is a total order).
    private mutating func sortByName() {
        let order = keys.indices.sorted { keys[$0] < keys[$1] }
        keys = order.map { keys[$0] }
        values = order.map { values[$0] }
    }

    /// Whether every byte of `name` is ASCII.
    static func isASCII(_ name: String) -> Bool { Validation.isASCII(name) }

    /// ``search(_:)`` for an ASCII `key` in a table of ASCII names (sorted, so `<` is a total
    /// order over them): one walk that stops at the name or at the first name after it. For
    /// saves, whose names are mostly new; a lookup of a name that is there compares less with
    /// ``search(_:)``'s equality scan.
    private func searchSorted(_ key: String) -> SearchResult {
        guard keys.count <= 8 else { return search(key) }
        for index in keys.indices {
            if keys[index] == key { return .found(index) }
            if key < keys[index] { return .insertionPoint(index) }
        }
        return .insertionPoint(keys.count)
    }

    /// Where `key` is, or where it would go. Equality is cheaper than ordering for short
    /// names, so a small table is scanned for the name first; so is a table or a key with a
    /// name that is not ASCII, over which `<` cannot be trusted.
    private func search(_ key: String) -> SearchResult {
        if keys.count <= 8 || hasNonASCIIName || !Self.isASCII(key) {
            for index in keys.indices where keys[index] == key { return .found(index) }
            return .insertionPoint(keys.firstIndex { key < $0 } ?? keys.count)
        }
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] == key { return .found(middle) }
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return .insertionPoint(low)
    }
}

extension FieldTable: Sequence {
    /// The fields in name order.
    struct Iterator: IteratorProtocol {
        fileprivate let table: FieldTable
        fileprivate var index = 0

        mutating func next() -> (key: String, value: FieldValue)? {
            guard index < table.keys.count else { return nil }
            defer { index += 1 }
            return (table.keys[index], table.values[index])
        }
    }

    func makeIterator() -> Iterator {
        Iterator(table: self)
    }

    var underestimatedCount: Int { keys.count }
}

extension FieldTable: ExpressibleByDictionaryLiteral {
    /// A table of `elements`; a name given twice keeps its last value.
    init(dictionaryLiteral elements: (String, FieldValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }
}

extension FieldTable {
    /// A table of the fields of `dictionary`.
    init(_ dictionary: [String: FieldValue]) {
        self.init()
        for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            keys.append(key)
            values.append(value)
            if !hasNonASCIIName && !Self.isASCII(key) { hasNonASCIIName = true }
        }
    }
}
