/// Prints a ``CloudKitSchema`` as canonical CloudKit Schema Language text.
///
/// The canonical form: `DEFINE SCHEMA`, the roles by name, then the record types by name,
/// each with its system fields, then its other fields, by name, then one `GRANT` per role
/// by role name; keywords in capitals, indexes and permissions in the grammar's order,
/// names quoted when they must be (system names, reserved words), four spaces per level.
enum SchemaPrinter {
    /// The text of `schema`.
    static func print(_ schema: CloudKitSchema) -> String {
        var lines = ["DEFINE SCHEMA"]
        if !schema.roles.isEmpty {
            lines.append("")
            for role in schema.roles.sorted() { lines.append("    CREATE ROLE \(SchemaNames.written(role));") }
        }
        for recordType in schema.recordTypes.values.sorted(by: { $0.name < $1.name }) {
            lines.append("")
            lines += print(recordType)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func print(_ recordType: SchemaRecordType) -> [String] {
        let head = "    RECORD TYPE \(SchemaNames.written(recordType.name)) ("
        let fields = recordType.fields.values.sorted {
            ($0.isSystemField ? 0 : 1, $0.name) < ($1.isSystemField ? 0 : 1, $1.name)
        }
        let grants = recordType.grants.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        let items =
            fields.map(print)
            + grants.map { role, permissions in
                let names = permissions.sorted().map(\.rawValue).joined(separator: ", ")
                return "GRANT \(names) TO \(SchemaNames.written(role))"
            }
        if items.isEmpty { return [head + ");"] }
        let body = items.enumerated().map { offset, item in
            "        " + item + (offset == items.count - 1 ? "" : ",")
        }
        return [head] + body + ["    );"]
    }

    private static func print(_ field: SchemaField) -> String {
        let indexes = field.indexes.sorted().map { " " + $0.rawValue }.joined()
        return "\(SchemaNames.written(field.name)) \(field.type.text)\(indexes)"
    }
}
