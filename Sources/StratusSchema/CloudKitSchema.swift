/// A CloudKit schema: the record types of a container's environment and the roles its public
/// database grants permissions to, as the CloudKit Schema Language writes them
/// (`DEFINE SCHEMA … ;`, see Docs/SchemaLanguage.md).
///
/// The model has no order: CloudKit does not keep the order of a schema's elements, so two
/// schemas that declare the same types, fields, indexes, roles and grants in a different
/// order are equal. ``text`` prints the canonical form, which ``parse(_:)`` reads back to an
/// equal value.
public struct CloudKitSchema: Hashable, Sendable {
    /// The record types, by name.
    public var recordTypes: [String: SchemaRecordType]
    /// The roles the schema creates (`CREATE ROLE`), without the implicit `_creator`,
    /// `_world` and `_icloud`.
    public var roles: Set<String>

    /// A schema of `recordTypes` (a later type of the same name replaces an earlier one) and
    /// `roles`.
    public init(recordTypes: [SchemaRecordType] = [], roles: Set<String> = []) {
        self.recordTypes = Dictionary(recordTypes.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        self.roles = roles
    }

    /// Parses CloudKit Schema Language text.
    ///
    /// - Throws: ``SchemaErrors``, every problem found with its line and column: a syntax
    ///   error ends the parse; problems with names, types and indexes are collected.
    public static func parse(_ text: String) throws(SchemaErrors) -> CloudKitSchema {
        var parser = SchemaParser(text)
        return try parser.parseSchema()
    }

    /// The canonical text of the schema: keywords in capitals, roles, then record types by
    /// name, each with its system fields, its fields by name and one `GRANT` per role (a
    /// role without permissions is left out). The text of a schema with ``problems`` (a name
    /// with a quote or a line break, say) may not parse.
    public var text: String { SchemaPrinter.print(self) }

    /// The record type named `name`, if the schema has one.
    public subscript(recordType name: String) -> SchemaRecordType? {
        get { recordTypes[name] }
        set { recordTypes[name] = newValue }
    }
}

extension CloudKitSchema {
    /// The roles every schema has without creating them: the record's creator (`_creator`),
    /// every user (`_world`) and every signed-in user (`_icloud`).
    public static let implicitRoles: Set<String> = ["_creator", "_icloud", "_world"]

    /// The problems of a schema built in code: names, system field types and indexes, each
    /// as one sentence naming the record type and field (the parser reports the same
    /// problems with their line and column). Empty when the schema is valid.
    public var problems: [String] {
        var problems: [String] = []
        for role in roles.sorted() {
            if let problem = SchemaNames.problem(withRole: role) { problems.append(problem) }
        }
        for type in recordTypes.values.sorted(by: { $0.name < $1.name }) {
            problems += type.problems(roles: roles)
        }
        return problems
    }
}
