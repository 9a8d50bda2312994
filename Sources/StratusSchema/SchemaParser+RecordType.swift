extension SchemaParser {
    /// `RECORD TYPE %type-name% ( { field | grant } [, …] )`; returns the name.
    mutating func parseRecordType() throws(SchemaError) -> String {
        advance()
        try expectKeyword("TYPE", "after RECORD")
        let (name, token) = try self.name("a record type name")
        if let problem = SchemaNames.problem(withRecordType: name) {
            problems.append(token.error(problem))
        } else if schema.recordTypes[name] != nil {
            problems.append(token.error("record type '\(name)' is defined twice"))
        }
        var recordType = SchemaRecordType(name: name)
        try expect("(", "after RECORD TYPE \(SchemaNames.written(name))")
        if peek.isSymbol(")") {
            advance()
        } else {
            while true {
                if peek.isKeyword("GRANT") {
                    try parseGrant(into: &recordType)
                } else {
                    try parseField(into: &recordType)
                }
                if peek.isSymbol(")") {
                    advance()
                    break
                }
                try expect(",", "or ')' after an item of record type '\(name)'")
            }
        }
        schema.recordTypes[name] = recordType
        return name
    }

    /// `GRANT { READ | CREATE | WRITE } [, …] TO %role-name%`
    private mutating func parseGrant(into recordType: inout SchemaRecordType) throws(SchemaError) {
        advance()
        var permissions: Set<SchemaPermission> = []
        while true {
            let token = advance()
            guard let permission = token.keyword.flatMap(SchemaPermission.init(rawValue:)) else {
                throw token.error("expected READ, CREATE or WRITE after GRANT, found \(token.quotedForMessage)")
            }
            permissions.insert(permission)
            guard peek.isSymbol(",") else { break }
            advance()
        }
        try expectKeyword("TO", "after the permissions of GRANT")
        let (role, token) = try name("a role name after TO")
        recordType.grants[role, default: []].formUnion(permissions)
        grantedRoles.append((role, recordType.name, token))
    }

    /// `%field-name% data-type [ field-options [..] ]`
    private mutating func parseField(into recordType: inout SchemaRecordType) throws(SchemaError) {
        let (name, token) = try self.name("a field name or GRANT")
        let type = try fieldType()
        var field = SchemaField(name: name, type: type)
        while let index = peek.keyword.flatMap(SchemaIndex.init(rawValue:)) {
            let option = advance()
            if field.indexes.contains(index) {
                problems.append(option.error("field '\(recordType.name).\(name)' is \(index.rawValue) twice"))
            } else if let problem = type.problem(with: index, field: name, in: recordType.name) {
                problems.append(option.error(problem))
            }
            field.indexes.insert(index)
        }
        if let problem = SchemaNames.problem(withField: name, in: recordType.name)
            ?? SchemaNames.problem(withSystemField: name, type: type, in: recordType.name)
        {
            problems.append(token.error(problem))
        } else if recordType.fields[name] != nil {
            problems.append(token.error("field '\(recordType.name).\(name)' is defined twice"))
        }
        recordType.fields[name] = field
    }

    /// `primitive-type | LIST "<" primitive-type ">"`
    private mutating func fieldType() throws(SchemaError) -> SchemaFieldType {
        guard peek.isKeyword("LIST") else { return try primitiveType() }
        advance()
        try expect("<", "after LIST")
        if peek.isKeyword("LIST") { throw peek.error("a list's elements cannot be lists: expected a primitive type") }
        let element = try primitiveType()
        try expect(">", "after LIST<\(element.text)")
        return .list(element)
    }

    private mutating func primitiveType() throws(SchemaError) -> SchemaFieldType {
        let token = advance()
        switch token.keyword {
        case "ASSET": return .asset
        case "BYTES": return .bytes
        case "DOUBLE": return .double
        case "INT64": return .int64
        case "LOCATION": return .location
        case "REFERENCE": return .reference
        case "STRING": return .string
        case "TIMESTAMP": return .timestamp
        case "NUMBER": return .number(preferredAs: try numberPreference())
        case "ENCRYPTED":
            let base = advance()
            guard let type = base.keyword.flatMap(SchemaEncryptedType.init(rawValue:)) else {
                throw base.error(
                    "expected BYTES, STRING, DOUBLE, INT64, LOCATION or TIMESTAMP after ENCRYPTED, "
                        + "found \(base.quotedForMessage)")
            }
            return .encrypted(type)
        default:
            throw token.error(
                "expected a field type (ASSET, BYTES, DOUBLE, ENCRYPTED …, INT64, LIST<…>, LOCATION, NUMBER, "
                    + "REFERENCE, STRING or TIMESTAMP), found \(token.quotedForMessage)")
        }
    }

    /// `[ PREFERRED AS { INT64 | DOUBLE } ]` after NUMBER.
    private mutating func numberPreference() throws(SchemaError) -> SchemaNumberPreference? {
        guard peek.isKeyword("PREFERRED") else { return nil }
        advance()
        try expectKeyword("AS", "after PREFERRED")
        let token = advance()
        guard let preference = token.keyword.flatMap(SchemaNumberPreference.init(rawValue:)) else {
            throw token.error("expected INT64 or DOUBLE after PREFERRED AS, found \(token.quotedForMessage)")
        }
        return preference
    }
}
