extension CloudKitSchema {
    /// Every difference from `old` to `new`: roles by name, then record types by name, each
    /// type's fields by name. A system field the schema does not mention is a system field
    /// without indexes (it cannot be removed).
    public static func changes(from old: CloudKitSchema, to new: CloudKitSchema) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        for role in new.roles.subtracting(old.roles).sorted() {
            changes.append(SchemaChange(kind: .roleAdded, message: "role '\(role)' is created"))
        }
        for role in old.roles.subtracting(new.roles).sorted() {
            changes.append(SchemaChange(kind: .roleRemoved, message: "role '\(role)' is no longer created"))
        }
        let names = Set(old.recordTypes.keys).union(new.recordTypes.keys).sorted()
        for name in names {
            switch (old.recordTypes[name], new.recordTypes[name]) {
            case (nil, _?):
                changes.append(
                    SchemaChange(kind: .recordTypeAdded, recordType: name, message: "record type '\(name)' is added"))
            case (_?, nil):
                changes.append(
                    SchemaChange(
                        kind: .recordTypeRemoved, recordType: name,
                        message: "record type '\(name)' is removed, with its records' data"))
            case (let before?, let after?):
                changes += recordTypeChanges(from: before, to: after)
            case (nil, nil):
                break
            }
        }
        return changes
    }

    /// The changes from `old` to `new` that CloudKit refuses against a production schema
    /// `old`: every removed record type or field and every changed field type. Empty when
    /// `new` only adds to `old`.
    public static func productionViolations(from old: CloudKitSchema, to new: CloudKitSchema) -> [SchemaChange] {
        changes(from: old, to: new).filter { !$0.isAllowedInProduction }
    }

    private static func recordTypeChanges(from old: SchemaRecordType, to new: SchemaRecordType) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let names = Set(old.fields.keys).union(new.fields.keys).union(SchemaField.systemFields.keys).sorted()
        for name in names {
            changes += fieldChanges(old: field(name, of: old), new: field(name, of: new), in: old.name)
        }
        for role in Set(old.grants.keys).union(new.grants.keys).sorted() {
            let before = old.grants[role, default: []]
            let after = new.grants[role, default: []]
            if before != after {
                changes.append(
                    SchemaChange(
                        kind: .grantsChanged, recordType: old.name,
                        message: "record type '\(old.name)' grants \(permissions(after)) to role '\(role)' "
                            + "instead of \(permissions(before))"))
            }
        }
        return changes
    }

    /// The field `name` of `type`: declared, a system field without indexes, or `nil`.
    private static func field(_ name: String, of type: SchemaRecordType) -> SchemaField? {
        if let field = type.fields[name] { return field }
        return SchemaField.systemFields[name].map { SchemaField(name: name, type: $0) }
    }

    private static func fieldChanges(old: SchemaField?, new: SchemaField?, in type: String) -> [SchemaChange] {
        guard let old else {
            guard let new else { return [] }
            return [
                SchemaChange(
                    kind: .fieldAdded, recordType: type, field: new.name,
                    message: "field '\(type).\(new.name)' is added as \(new.type.text)")
            ]
        }
        guard let new else {
            return [
                SchemaChange(
                    kind: .fieldRemoved, recordType: type, field: old.name,
                    message: "field '\(type).\(old.name)' (\(old.type.text)) is removed, with its data")
            ]
        }
        var changes: [SchemaChange] = []
        if old.type != new.type {
            changes.append(typeChange(from: old.type, to: new.type, field: old.name, in: type))
        }
        for index in new.indexes.subtracting(old.indexes).sorted() {
            changes.append(
                SchemaChange(
                    kind: .indexAdded, recordType: type, field: old.name,
                    message: "field '\(type).\(old.name)' becomes \(index.rawValue)"))
        }
        for index in old.indexes.subtracting(new.indexes).sorted() {
            changes.append(
                SchemaChange(
                    kind: .indexRemoved, recordType: type, field: old.name,
                    message: "field '\(type).\(old.name)' is no longer \(index.rawValue): queries that need it fail"))
        }
        return changes
    }

    /// A change of type: giving a bare `NUMBER` its first `PREFERRED AS` type is allowed,
    /// anything else is refused.
    private static func typeChange(
        from old: SchemaFieldType, to new: SchemaFieldType, field: String, in type: String
    ) -> SchemaChange {
        switch (old, new) {
        case (.number(nil), .number(let preferred?)), (.list(.number(nil)), .list(.number(let preferred?))):
            return SchemaChange(
                kind: .numberPreferred, recordType: type, field: field,
                message: "field '\(type).\(field)' NUMBER is preferred as \(preferred.rawValue)")
        default:
            return SchemaChange(
                kind: .fieldTypeChanged, recordType: type, field: field,
                message: "field '\(type).\(field)' changes type from \(old.text) to \(new.text)")
        }
    }

    private static func permissions(_ permissions: Set<SchemaPermission>) -> String {
        permissions.isEmpty ? "nothing" : permissions.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
