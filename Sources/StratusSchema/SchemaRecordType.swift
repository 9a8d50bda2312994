/// A record type of a ``CloudKitSchema``: its fields and the permissions roles have on its
/// records in the public database.
public struct SchemaRecordType: Hashable, Sendable {
    /// The type's name, such as `Department`.
    public var name: String
    /// The fields the schema declares, by name: the type's own fields and any system field
    /// (``SchemaField/systemFields``) the schema mentions to give it indexes.
    public var fields: [String: SchemaField]
    /// The permissions each role has (`GRANT … TO role`), by role name. A role without
    /// permissions is absent.
    public var grants: [String: Set<SchemaPermission>]

    /// A record type named `name` with `fields` (a later field of the same name replaces an
    /// earlier one) and `grants`.
    public init(name: String, fields: [SchemaField] = [], grants: [String: Set<SchemaPermission>] = [:]) {
        self.name = name
        self.fields = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        self.grants = grants.filter { !$0.value.isEmpty }
    }

    /// The field named `name`, if the type declares it.
    public subscript(field name: String) -> SchemaField? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    /// The indexes CloudKit keeps for the field `name` of this type: a declared field's, none
    /// for a system field the schema does not mention, `nil` for a field the type does not
    /// have.
    public func indexes(ofField name: String) -> Set<SchemaIndex>? {
        if let field = fields[name] { return field.indexes }
        return SchemaField.systemFields[name] == nil ? nil : []
    }

    /// The grants `GRANT WRITE TO "_creator"`, `GRANT CREATE TO "_icloud"` and
    /// `GRANT READ TO "_world"`, which Apple's documentation recommends for a type used in
    /// the public database.
    public static let publicDatabaseGrants: [String: Set<SchemaPermission>] = [
        "_creator": [.write], "_icloud": [.create], "_world": [.read],
    ]

    /// The problems of the type's name, fields and grants (see ``CloudKitSchema/problems``),
    /// given the roles the schema creates.
    func problems(roles: Set<String>) -> [String] {
        var problems: [String] = []
        if let problem = SchemaNames.problem(withRecordType: name) { problems.append(problem) }
        for field in fields.values.sorted(by: { $0.name < $1.name }) {
            problems += field.problems(in: name)
        }
        for role in grants.keys.sorted()
        where !roles.contains(role) && !CloudKitSchema.implicitRoles.contains(role) {
            problems.append(SchemaNames.unknownRole(role, in: name))
        }
        return problems
    }
}
