import StratusPredicate
import StratusSchema

/// What a production schema allows a query (decision 0020.6): a filter only on `QUERYABLE`
/// fields (a range also on `SORTABLE` ones), a sort only on `SORTABLE` fields.
extension DatabaseContext {
    /// Throws CloudKit's error for the first field of `predicate` or `sortKeys` whose index the
    /// production schema's `recordType` lacks, naming the field as the schema does (a system
    /// field by its internal name, `___modTime`, the name to give it an index). Development allows everything (it indexes every
    /// field it adds); a type the schema does not have is left to the query (`unknownItem`).
    func checkQueryAgainstSchema(_ predicate: QueryPredicate, sortKeys: [SortKey], recordType: String) throws {
        guard !schemaScope.growsJustInTime else { return }
        let schema = try engine.read { try engine.environmentSchema(schemaScope, $0) }
        guard let type = schema.recordTypes[recordType] else { return }
        for (key, isRange) in Self.filteredKeys(predicate) {
            guard let field = Self.schemaFieldName(key) else { continue }
            let indexes = type.indexes(ofField: field) ?? []
            if indexes.contains(.queryable) || (isRange && indexes.contains(.sortable)) { continue }
            throw SchemaViolation.notQueryable(field)
        }
        for sortKey in sortKeys {
            guard let field = Self.schemaFieldName(sortKey.key) else { continue }
            if type.indexes(ofField: field)?.contains(.sortable) == true { continue }
            throw SchemaViolation.notSortable(field)
        }
    }

    /// The schema language's name of a query key: the system fields' internal names, `nil` for
    /// `parent`, which the schema language does not name.
    static func schemaFieldName(_ key: String) -> String? {
        switch key {
        case "recordName", "recordID", "___recordID": return "___recordID"
        case "creationDate", "___createTime": return "___createTime"
        case "modificationDate", "___modTime": return "___modTime"
        case "creatorUserRecordID", "___createdBy": return "___createdBy"
        case "lastModifiedUserRecordID", "___modifiedBy": return "___modifiedBy"
        case "parent", "___parent": return nil
        default: return key
        }
    }

    /// The keys `predicate` filters on, in order, each with whether it is compared as a range.
    static func filteredKeys(_ predicate: QueryPredicate) -> [(String, Bool)] {
        switch predicate {
        case .true, .false: return []
        case .and(let parts), .or(let parts): return parts.flatMap(filteredKeys)
        case .not(let part): return filteredKeys(part)
        case .comparison(let comparison):
            let isRange = comparison.operator.isOrdering || comparison.operator == .between
            return keys(of: comparison.left).map { ($0, isRange) } + keys(of: comparison.right).map { ($0, isRange) }
        }
    }

    private static func keys(of operand: PredicateOperand) -> [String] {
        switch operand {
        case .key(let key): return [key]
        case .evaluatedObject, .constant, .now: return []
        case .aggregate(let elements): return elements.flatMap(keys)
        case .distance(let location, let fixed): return keys(of: location) + keys(of: fixed)
        }
    }
}
