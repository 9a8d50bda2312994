import Foundation
internal import Stratus
internal import StratusWebServices

/// A stored predicate written back as filter dictionaries: the inverse of
/// ``WSQueryTranslator``'s filters, up to equivalence (`LIST_CONTAINS_ALL` comes back as one
/// `LIST_CONTAINS` per item, `CONTAINS_ALL_TOKENS` as one `CONTAINS_ANY_TOKENS` per word).
struct WSFilterWriter {
    var translator: WSRecordTranslator

    /// The filters of `predicate`; `nil` when it has a form filters cannot express (a
    /// subscription saved through the embedded API with, say, `BETWEEN`).
    func filters(for predicate: NSPredicate) -> JSONValue? {
        guard case .success(let expression) = predicate.stratusPredicate else { return nil }
        var result: [JSONValue] = []
        let parts: [QueryPredicate]
        switch expression {
        case .true: parts = []
        case .and(let items): parts = items
        default: parts = [expression]
        }
        for part in parts {
            guard let filter = filter(part) else { return nil }
            result.append(filter)
        }
        return .array(result)
    }

    private func filter(_ expression: QueryPredicate) -> JSONValue? {
        switch expression {
        case .comparison(let comparison): return filter(comparison, negated: false)
        case .not(.comparison(let comparison)): return filter(comparison, negated: true)
        default: return nil
        }
    }

    private func filter(_ comparison: PredicateComparison, negated: Bool) -> JSONValue? {
        if comparison.left == .evaluatedObject, case .constant(let words) = comparison.right, !negated {
            return ["comparator": "CONTAINS_ANY_TOKENS", "fieldValue": field(words)]
        }
        if case .distance(.key(let key), .constant(let location)) = comparison.left,
            case .constant(let radius) = comparison.right, !negated
        {
            let kilometres: Double
            switch radius {
            case .int(let i): kilometres = Double(i)
            case .double(let d): kilometres = d
            default: return nil
            }
            var members = named(key, comparator: "NEAR", value: location).objectMembers
            members["distance"] = .double(kilometres * 1000)
            return .object(members)
        }
        guard case .key(let key) = comparison.left, case .constant(let value) = comparison.right,
            let comparator = comparatorName(comparison, negated: negated)
        else { return nil }
        return named(key, comparator: comparator, value: value)
    }

    private func comparatorName(_ comparison: PredicateComparison, negated: Bool) -> String? {
        let any = comparison.quantifier == .any
        let name: String?
        switch comparison.operator {
        case .equalTo: name = any ? nil : "EQUALS"
        case .notEqualTo: name = any ? nil : "NOT_EQUALS"
        case .lessThan: name = any ? nil : "LESS_THAN"
        case .lessThanOrEqualTo: name = any ? nil : "LESS_THAN_OR_EQUALS"
        case .greaterThan: name = any ? nil : "GREATER_THAN"
        case .greaterThanOrEqualTo: name = any ? nil : "GREATER_THAN_OR_EQUALS"
        case .in: name = any ? "LIST_CONTAINS_ANY" : "IN"
        case .contains: name = any ? nil : "LIST_CONTAINS"
        case .beginsWith: name = any ? "LIST_MEMBER_BEGINS_WITH" : "BEGINS_WITH"
        default: name = nil
        }
        guard let name else { return nil }
        guard negated else { return name }
        switch name {
        case "IN": return "NOT_IN"
        case "LIST_CONTAINS_ANY", "LIST_CONTAINS", "BEGINS_WITH", "LIST_MEMBER_BEGINS_WITH": return "NOT_" + name
        default: return nil
        }
    }

    /// `{comparator, fieldName | systemFieldName, fieldValue}`.
    private func named(_ key: String, comparator: String, value: PredicateValue) -> JSONValue {
        var members: [String: JSONValue] = ["comparator": .string(comparator), "fieldValue": field(value)]
        if let system = WSSystemField.keys.first(where: { $0.value == key })?.key {
            members["systemFieldName"] = .string(system)
        } else {
            members["fieldName"] = .string(key)
        }
        return .object(members)
    }

    /// A field dictionary `{value, type}` for a predicate constant.
    func field(_ value: PredicateValue) -> JSONValue {
        if case .list(let items) = value {
            let typed = items.map(scalar)
            let type = typed.first.map { "\($0.type)_LIST" } ?? "LIST"
            return ["value": .array(typed.map(\.value)), "type": .string(type)]
        }
        let (json, type) = scalar(value)
        return ["value": json, "type": .string(type)]
    }

    private func scalar(_ value: PredicateValue) -> (value: JSONValue, type: String) {
        switch value {
        case .string(let s): return (.string(s), "STRING")
        case .int(let i): return (.integer(i), "INT64")
        case .bool(let b): return (.integer(b ? 1 : 0), "INT64")
        case .double(let d): return (WSOutputValue.json(d, numbersAsStrings: false), "DOUBLE")
        case .date(let date): return (.integer(WSRecordTranslator.milliseconds(date)), "TIMESTAMP")
        case .bytes(let data): return (.string(data.base64EncodedString()), "BYTES")
        case .reference(let recordName, let zoneName, let ownerName):
            let id = CKRecord.ID(
                recordName: recordName, zoneID: CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName))
            return (translator.dictionary(for: CKRecord.Reference(recordID: id, action: .none)), "REFERENCE")
        case .location(let latitude, let longitude):
            return (["latitude": .double(latitude), "longitude": .double(longitude)], "LOCATION")
        case .null, .list: return (.null, "STRING")
        }
    }
}

extension JSONValue {
    /// The members of an object; empty for anything else.
    fileprivate var objectMembers: [String: JSONValue] {
        if case .object(let members) = self { return members }
        return [:]
    }
}
