/// A permission a role has on a record type's records in the public database.
public enum SchemaPermission: String, CaseIterable, Comparable, Hashable, Sendable {
    /// Reading records (`READ`).
    case read = "READ"
    /// Creating records (`CREATE`).
    case create = "CREATE"
    /// Changing and deleting records (`WRITE`).
    case write = "WRITE"

    /// The grammar's order: `READ`, `CREATE`, `WRITE`.
    public static func < (lhs: SchemaPermission, rhs: SchemaPermission) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
