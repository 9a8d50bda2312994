import StratusBackend

/// A record type as a database's just-in-time schema holds it (decision 0004): what
/// `stratus schema export` prints.
package struct RecordTypeSummary: Sendable, Equatable {
    /// A field: its name and its type as the schema language spells it (`STRING`, `NUMBER`,
    /// `LIST<TIMESTAMP>`; `nil` for a field that has only held empty lists, whose element type
    /// is not known yet).
    package struct Field: Sendable, Equatable {
        package var name: String
        package var typeName: String?
    }

    package var name: String
    /// The fields the records saved so far carried, by name; system fields are not listed.
    package var fields: [Field]
}

extension DatabaseContext {
    /// Every record type saved in this database, in name order, with its fields.
    package func recordTypes() throws -> [RecordTypeSummary] {
        let prefix = keys.prefix.appending(tag: DatabaseKeys.recordTypeTag)
        return try engine.read { txn in
            var result: [RecordTypeSummary] = []
            var range = prefix.range
            while true {
                let page = try txn.scan(range, limit: 256)
                for pair in page {
                    var reader = OrderedKeyReader(pair.key, from: prefix.bytes.count)
                    let name = try reader.readString()
                    let row = try RecordTypeRow(decoding: pair.value)
                    let fields = row.fields.filter { !$0.key.hasPrefix("___") }.sorted { $0.key < $1.key }.map {
                        RecordTypeSummary.Field(name: $0.key, typeName: Self.schemaLanguageName($0.value.type))
                    }
                    result.append(RecordTypeSummary(name: name, fields: fields))
                }
                guard let last = page.last, page.count == 256 else { break }
                range = KeyRange(from: last.key + [0], to: range.upperBound)
            }
            return result
        }
    }

    /// The schema language's name of a just-in-time field type: numbers are `NUMBER`, the
    /// type CloudKit's development environment gives a number field a save adds.
    private static func schemaLanguageName(_ type: SchemaType) -> String? {
        switch type {
        case .emptyList, .invalid: return nil
        case .number: return "NUMBER"
        case .numberList: return "LIST<NUMBER>"
        default: return type.name
        }
    }
}
