/// An index CloudKit keeps for a field (a field option of the schema language).
public enum SchemaIndex: String, CaseIterable, Comparable, Hashable, Sendable {
    /// `QUERYABLE`: an index for equality lookups.
    case queryable = "QUERYABLE"
    /// `SORTABLE`: range searches and sorting.
    case sortable = "SORTABLE"
    /// `SEARCHABLE`: the text search index (`self CONTAINS 'token'`).
    case searchable = "SEARCHABLE"

    /// The grammar's order: `QUERYABLE`, `SORTABLE`, `SEARCHABLE`.
    public static func < (lhs: SchemaIndex, rhs: SchemaIndex) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
