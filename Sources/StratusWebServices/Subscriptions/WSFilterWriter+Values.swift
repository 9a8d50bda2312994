import Foundation
package import Stratus

/// Filter values, as field dictionaries.
extension WSFilterWriter {
    /// `{comparator, fieldName | systemFieldName, fieldValue}`.
    func filter(_ key: String, _ comparator: String, _ value: PredicateValue) -> JSONValue {
        var members: [String: JSONValue] = ["comparator": .string(comparator), "fieldValue": field(value)]
        if let system = WSSystemField.name(forKey: key) {
            members["systemFieldName"] = .string(system)
        } else {
            members["fieldName"] = .string(key)
        }
        return .object(members)
    }

    /// A field dictionary `{value, type}` for a predicate constant: a list's type is its items'
    /// (integers among doubles making a DOUBLE_LIST), an empty list's `LIST`.
    package func field(_ value: PredicateValue) -> JSONValue {
        guard case .list(let items) = value else {
            let (json, type) = scalar(value)
            return ["value": json, "type": .string(type)]
        }
        let hasDouble = items.contains { if case .double = $0 { return true } else { return false } }
        let typed = items.map { item -> (value: JSONValue, type: String) in
            if hasDouble, case .int(let integer) = item { return scalar(.double(Double(integer))) }
            return scalar(item)
        }
        let type = typed.first.map { "\($0.type)_LIST" } ?? "LIST"
        return ["value": .array(typed.map(\.value)), "type": .string(type)]
    }

    /// A scalar constant's JSON and type tag.
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
