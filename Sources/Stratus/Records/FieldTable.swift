/// A record's fields: names and values, kept sorted by name in two parallel arrays.
///
/// Records have a handful of fields, read and written whole. Arrays sorted by name cost two
/// allocations where a dictionary costs a table and a hash (SipHash) of every name on every
/// insert and lookup, and they are already in the order the fields are encoded and
/// `allKeys()` lists them, so neither sorts. The names are an array of their own so that a
/// lookup compares names without copying values, and `allKeys()` shares it. Lookups scan
/// small tables and bisect large ones.
///
/// The API is the part of `Dictionary`'s the engine uses, so the two read alike.
struct FieldTable: Sendable, Hashable {
    /// The field names, sorted (`String`'s `<`), each once.
    private(set) var keys: [String]
    /// The values, in the order of their names.
    private(set) var values: [FieldValue]

    /// An empty table.
    init() {
        keys = []
        values = []
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
            switch (search(key), newValue) {
            case (.found(let index), let value?):
                values[index] = value
            case (.found(let index), nil):
                keys.remove(at: index)
                values.remove(at: index)
            case (.insertionPoint(let index), let value?):
                keys.insert(key, at: index)
                values.insert(value, at: index)
            case (.insertionPoint, nil):
                break
            }
        }
    }

    /// The fields decoded in the order they were encoded: `keys` and `values` as they are when
    /// `sorted` (each name after the one before), else set one by one like the subscript, so a
    /// table read from damaged or foreign bytes still ends up sorted, with each name once.
    init(decoded keys: [String], _ values: [FieldValue], sorted: Bool) {
        if sorted && keys.count == values.count {
            self = FieldTable(keys: keys, values: values)
        } else {
            var table = FieldTable()
            for (key, value) in zip(keys, values) { table[key] = value }
            self = table
        }
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

    /// Where `key` is, or where it would go. Equality is cheaper than ordering for short
    /// names, so a small table is scanned for the name first.
    private func search(_ key: String) -> SearchResult {
        if keys.count <= 8 {
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
        }
    }
}
