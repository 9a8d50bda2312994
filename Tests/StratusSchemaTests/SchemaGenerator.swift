import StratusSchema

/// Random valid schemas from a seed (SplitMix64), for the round-trip property.
struct SchemaGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    /// Every field type: the primitives, the encrypted types and a list of each.
    static let allTypes: [SchemaFieldType] = {
        let primitives: [SchemaFieldType] =
            [.asset, .bytes, .double, .int64, .location, .reference, .string, .timestamp, .number(preferredAs: nil)]
            + SchemaNumberPreference.allCases.map { .number(preferredAs: $0) }
            + SchemaEncryptedType.allCases.map { .encrypted($0) }
        return primitives + primitives.map { .list($0) }
    }()

    mutating func schema() -> CloudKitSchema {
        let roles = Set((0..<int(below: 3)).map { _ in name() })
        let grantees = roles.sorted() + CloudKitSchema.implicitRoles.sorted()
        let types = (0..<int(below: 5)).map { _ in recordType(grantees: grantees) }
        return CloudKitSchema(recordTypes: types, roles: roles)
    }

    private mutating func recordType(grantees: [String]) -> SchemaRecordType {
        var fields = (0..<int(below: 8)).map { _ in field() }
        for (name, type) in SchemaField.systemFields.sorted(by: { $0.key < $1.key }) where int(below: 4) == 0 {
            fields.append(SchemaField(name: name, type: type, indexes: indexes(for: type)))
        }
        var grants: [String: Set<SchemaPermission>] = [:]
        for role in grantees where int(below: 3) == 0 {
            grants[role] = Set(SchemaPermission.allCases.filter { _ in int(below: 2) == 0 })
        }
        return SchemaRecordType(name: name(), fields: fields, grants: grants)
    }

    private mutating func field() -> SchemaField {
        let type = Self.allTypes[int(below: Self.allTypes.count)]
        return SchemaField(name: name(), type: type, indexes: indexes(for: type))
    }

    private mutating func indexes(for type: SchemaFieldType) -> Set<SchemaIndex> {
        type.permittedIndexes.filter { _ in int(below: 2) == 0 }
    }

    /// A user identifier: sometimes a reserved word or a keyword in any case, otherwise
    /// letters, digits and underscores.
    private mutating func name() -> String {
        let words = ["grant", "Preferred", "QUERYABLE", "sortable", "searchable", "string", "LIST", "type", "to"]
        if int(below: 6) == 0 { return words[int(below: words.count)] }
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let rest = Array("abcXYZ019_")
        var name = String(letters[int(below: letters.count)])
        for _ in 0..<int(below: 12) { name.append(rest[int(below: rest.count)]) }
        return name
    }

    /// A number from 0 to `bound` - 1.
    mutating func int(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
