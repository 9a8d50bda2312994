/// A record's fields: names and values, kept sorted by name in one array.
///
/// Records have a handful of fields, read and written whole. An array sorted by name costs one
/// allocation where a dictionary costs a table and a hash (SipHash) of every name on every
/// insert and lookup, and it is already in the order the fields are encoded and `allKeys()`
/// lists them, so neither sorts. Lookups scan small tables and bisect large ones.
///
/// The API is the part of `Dictionary`'s the engine uses, so the two read alike.
struct FieldTable: Sendable, Hashable {
    /// The fields, sorted by name (`String`'s `<`), each name once.
    private(set) var entries: [(key: String, value: FieldValue)]

    /// An empty table.
    init() {
        entries = []
    }

    /// The number of fields.
    var count: Int { entries.count }

    /// Whether there are no fields.
    var isEmpty: Bool { entries.isEmpty }

    /// Makes room for `capacity` fields.
    mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// The field names, sorted.
    var keys: [String] { entries.map(\.key) }

    /// The values, in the order of their names.
    var values: LazyMapSequence<[(key: String, value: FieldValue)], FieldValue> { entries.lazy.map(\.value) }

    /// The value of field `key`, or `nil`; setting `nil` removes the field.
    subscript(key: String) -> FieldValue? {
        get {
            switch search(key) {
            case .found(let index): return entries[index].value
            case .insertionPoint: return nil
            }
        }
        set {
            switch (search(key), newValue) {
            case (.found(let index), let value?): entries[index].value = value
            case (.found(let index), nil): entries.remove(at: index)
            case (.insertionPoint(let index), let value?): entries.insert((key, value), at: index)
            case (.insertionPoint, nil): break
            }
        }
    }

    /// Appends field `key` when it sorts after every field already here (the order fields are
    /// decoded in), else sets it like the subscript: a table read from damaged or foreign bytes
    /// still ends up sorted, with each name once.
    mutating func append(_ key: String, _ value: FieldValue) {
        if let last = entries.last?.key, !(last < key) {
            self[key] = value
        } else {
            entries.append((key, value))
        }
    }

    /// A table of the same names with `transform` applied to every value.
    func mapValues(_ transform: (FieldValue) throws -> FieldValue) rethrows -> FieldTable {
        var table = FieldTable()
        table.entries = try entries.map { ($0.key, try transform($0.value)) }
        return table
    }

    private enum SearchResult {
        case found(Int)
        case insertionPoint(Int)
    }

    /// Where `key` is, or where it would go. Equality is cheaper than ordering for short
    /// names, so a small table is scanned for the name first.
    private func search(_ key: String) -> SearchResult {
        if entries.count <= 8 {
            for index in entries.indices where entries[index].key == key { return .found(index) }
            return .insertionPoint(entries.firstIndex { key < $0.key } ?? entries.count)
        }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let name = entries[middle].key
            if name == key { return .found(middle) }
            if name < key { low = middle + 1 } else { high = middle }
        }
        return .insertionPoint(low)
    }

    static func == (lhs: FieldTable, rhs: FieldTable) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for (key, value) in entries {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}

extension FieldTable: Sequence {
    /// The fields in name order.
    func makeIterator() -> IndexingIterator<[(key: String, value: FieldValue)]> {
        entries.makeIterator()
    }

    var underestimatedCount: Int { entries.count }
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
        entries = dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
