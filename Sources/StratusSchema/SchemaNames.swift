/// The naming rules of the schema language: user identifiers start with an ASCII letter and
/// go on with letters, digits and `_`; a leading underscore is the system's; five words are
/// reserved and must be quoted to be used as names.
enum SchemaNames {
    /// The reserved words Apple's documentation lists, lowercased: a name spelled as one
    /// (in any case) must be written in double quotes.
    static let reservedWords: Set<String> = ["grant", "preferred", "queryable", "sortable", "searchable"]

    /// The longest name: CloudKit's limit on field names, applied to every identifier.
    static let maximumLength = 255

    /// Whether `name` follows the rules of a user-defined identifier.
    static func isUserIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// Whether `name` must be quoted to be read back as a name: a system name (leading `_`)
    /// or a reserved word.
    static func needsQuotes(_ name: String) -> Bool {
        !isUserIdentifier(name) || reservedWords.contains(name.lowercased())
    }

    /// `name`, quoted when it must be.
    static func written(_ name: String) -> String {
        needsQuotes(name) ? "\"\(name)\"" : name
    }

    /// Why `name` cannot name a record type, or `nil`.
    static func problem(withRecordType name: String) -> String? {
        problem(with: name, what: "record type '\(name)'")
    }

    /// Why `name` cannot name a field of `recordType`, or `nil`: a user identifier, or one
    /// of the system fields.
    static func problem(withField name: String, in recordType: String) -> String? {
        if SchemaField.systemFields[name] != nil { return nil }
        if name.hasPrefix("_") {
            let known = SchemaField.systemFields.keys.sorted().joined(separator: ", ")
            return "field '\(recordType).\(name)': a leading underscore is reserved for the system fields (\(known))"
        }
        return problem(with: name, what: "field '\(recordType).\(name)'")
    }

    /// Why a system field `name` of `recordType` cannot have `type`, or `nil`.
    static func problem(withSystemField name: String, type: SchemaFieldType, in recordType: String) -> String? {
        guard let systemType = SchemaField.systemFields[name], systemType != type else { return nil }
        return "system field '\(recordType).\(name)' is \(systemType.text), not \(type.text): "
            + "a system field's type cannot change"
    }

    /// Why `name` cannot be created as a role, or `nil`.
    static func problem(withRole name: String) -> String? {
        if CloudKitSchema.implicitRoles.contains(name) {
            return "role '\(name)' is implicit and cannot be created"
        }
        if name.hasPrefix("_") {
            let known = CloudKitSchema.implicitRoles.sorted().joined(separator: ", ")
            return "role '\(name)': a leading underscore is reserved for the implicit roles (\(known))"
        }
        return problem(with: name, what: "role '\(name)'")
    }

    /// The problem of a grant to `role` in `recordType` that the schema neither creates nor
    /// has implicitly.
    static func unknownRole(_ role: String, in recordType: String) -> String {
        "record type '\(recordType)' grants to role '\(role)', which is neither created (CREATE ROLE) "
            + "nor implicit (\(CloudKitSchema.implicitRoles.sorted().joined(separator: ", ")))"
    }

    private static func problem(with name: String, what: String) -> String? {
        if name.isEmpty { return "\(what): a name cannot be empty" }
        if name.unicodeScalars.count > maximumLength {
            return "\(what): a name has at most \(maximumLength) characters"
        }
        if name.hasPrefix("_") { return "\(what): a leading underscore is reserved for system names" }
        if !isUserIdentifier(name) {
            return "\(what): a name starts with a letter (a-z, A-Z) and has only letters, digits and '_'"
        }
        return nil
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
