/// A field of a record type: its name, its type and the indexes CloudKit keeps for it.
public struct SchemaField: Hashable, Sendable {
    /// The field's name, such as `title`, or a system field's, such as `___createTime`.
    public var name: String
    /// The field's type.
    public var type: SchemaFieldType
    /// The indexes CloudKit keeps for the field.
    public var indexes: Set<SchemaIndex>

    /// A field named `name` of `type` with `indexes`.
    public init(name: String, type: SchemaFieldType, indexes: Set<SchemaIndex> = []) {
        self.name = name
        self.type = type
        self.indexes = indexes
    }

    /// The field CloudKit's development environment adds when a saved record first carries
    /// `name` with a value of `type` (just-in-time schema): with every index the type permits
    /// (``SchemaFieldType/justInTimeIndexes``).
    public static func justInTime(name: String, type: SchemaFieldType) -> SchemaField {
        SchemaField(name: name, type: type, indexes: type.justInTimeIndexes)
    }

    /// The fields every record type has without declaring them, with their types. A schema
    /// mentions one only to give it indexes, and cannot change its type.
    public static let systemFields: [String: SchemaFieldType] = [
        "___createTime": .timestamp, "___createdBy": .reference, "___etag": .string,
        "___modTime": .timestamp, "___modifiedBy": .reference, "___recordID": .reference,
    ]

    /// Whether the field is one of the ``systemFields``.
    public var isSystemField: Bool { Self.systemFields[name] != nil }

    /// The problems of the field (see ``CloudKitSchema/problems``) in the type `recordType`.
    func problems(in recordType: String) -> [String] {
        var problems: [String] = []
        if let problem = SchemaNames.problem(withField: name, in: recordType) { problems.append(problem) }
        if let problem = SchemaNames.problem(withSystemField: name, type: type, in: recordType) {
            problems.append(problem)
        }
        for index in indexes.sorted() {
            if let problem = type.problem(with: index, field: name, in: recordType) { problems.append(problem) }
        }
        return problems
    }
}
