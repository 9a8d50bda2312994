/// CloudKit's naming and size rules, each problem described with the bad value named.
enum Validation {
    /// The most items one modify request may carry.
    static let maximumItemsPerRequest = 400
    /// The most bytes of field data (assets excluded) one record may hold.
    static let maximumRecordSize = 1_000_000
    /// The longest record, zone or field name.
    static let maximumNameLength = 255

    static func recordNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "record name must not be empty" }
        if name.utf8.count > maximumNameLength {
            return "record name '\(name.prefix(40))…' is \(name.utf8.count) characters long; the limit is 255"
        }
        if !name.allSatisfy(\.isASCII) { return "record name '\(name)' must contain only ASCII characters" }
        if name.hasPrefix("_") { return "record name '\(name)' must not begin with an underscore" }
        return nil
    }

    static func zoneNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "zone name must not be empty" }
        if name.utf8.count > maximumNameLength {
            return "zone name '\(name.prefix(40))…' is \(name.utf8.count) characters long; the limit is 255"
        }
        if !name.allSatisfy(\.isASCII) { return "zone name '\(name)' must contain only ASCII characters" }
        return nil
    }

    static func recordTypeProblem(_ name: String) -> String? {
        if name.isEmpty { return "record type must not be empty" }
        if name.utf8.count > maximumNameLength {
            return "record type '\(name.prefix(40))…' is longer than 255 characters"
        }
        if name.hasPrefix("_") {
            return "record type '\(name)' must not begin with an underscore (reserved for system types)"
        }
        guard let first = name.unicodeScalars.first, first.isASCIILetter,
            name.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" })
        else {
            return
                "record type '\(name)' must start with an ASCII letter and contain only ASCII letters, digits and underscores"
        }
        return nil
    }

    static func fieldNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "field name must not be empty" }
        if name.hasPrefix("_") {
            return "field name '\(name)' must not begin with an underscore (reserved for system fields)"
        }
        if name.utf8.count > maximumNameLength {
            return "field name '\(name.prefix(40))…' is \(name.utf8.count) characters long; the limit is 255"
        }
        guard let first = name.unicodeScalars.first, first.isASCIILetter,
            name.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" })
        else {
            return
                "field name '\(name)' must start with an ASCII letter and contain only ASCII letters, digits and underscores"
        }
        return nil
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
