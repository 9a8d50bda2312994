extension SchemaFieldType {
    /// The indexes a field of this type may carry (Docs/SchemaLanguage.md, "Indexes by
    /// type"):
    ///
    /// - `QUERYABLE`: every type a query predicate can use — `STRING`, `INT64`, `DOUBLE`,
    ///   `NUMBER`, `TIMESTAMP`, `REFERENCE`, `LOCATION` and lists of them; not `BYTES` or
    ///   `ASSET`, and no encrypted type (CloudKit has no indexes on encrypted fields).
    /// - `SORTABLE`: the single values that have an order — `STRING`, `INT64`, `DOUBLE`,
    ///   `NUMBER`, `TIMESTAMP`, `REFERENCE` (by record name) and `LOCATION` (by distance);
    ///   no list.
    /// - `SEARCHABLE`: `STRING` only.
    public var permittedIndexes: Set<SchemaIndex> {
        switch self {
        case .string: return [.queryable, .sortable, .searchable]
        case .int64, .double, .number, .timestamp, .reference, .location: return [.queryable, .sortable]
        case .bytes, .asset, .encrypted: return []
        case .list(let element): return element.permittedIndexes.contains(.queryable) ? [.queryable] : []
        }
    }

    /// The indexes CloudKit's development environment gives a field of this type that a
    /// record save creates (just-in-time schema): every index the type permits. Apple's
    /// `CKQuery` documentation: during development the server indexes every field whose type
    /// a query predicate can use, and full-text search is on for every string field.
    public var justInTimeIndexes: Set<SchemaIndex> { permittedIndexes }

    /// Why a field `field` of `recordType` of this type cannot carry `index`, or `nil` if it
    /// can.
    public func problem(with index: SchemaIndex, field: String, in recordType: String) -> String? {
        if permittedIndexes.contains(index) { return nil }
        let reason: String
        switch (self, index) {
        case (.encrypted, _): reason = "CloudKit keeps no index of an encrypted field"
        case (.list, .sortable): reason = "a list cannot be sorted"
        case (_, .searchable): reason = "only a STRING field is searchable"
        default: reason = "\(text) values cannot be \(index == .queryable ? "queried" : "sorted")"
        }
        let allowed = permittedIndexes.sorted().map(\.rawValue).joined(separator: ", ")
        return "field '\(recordType).\(field)' of type \(text) cannot be \(index.rawValue): \(reason)"
            + (allowed.isEmpty ? " (it takes no index)" : " (it takes \(allowed))")
    }
}
