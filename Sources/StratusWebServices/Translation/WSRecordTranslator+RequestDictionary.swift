package import Stratus

/// Records out as a client sends them: the client direction of
/// ``record(from:defaultZone:)`` (decision 0016.2).
extension WSRecordTranslator {
    /// `record` as the `record` of a records/modify operation: `recordName`, `recordType`,
    /// `zoneID`, `recordChangeTag` when it has one, `parent` (`null` when it was cleared), and
    /// `fields` holding exactly `keys` — a key whose value is nil as `{"value": null}`, which
    /// the server reads as "clear this field".
    ///
    /// An ASSET field is written by ``assets`` (which must give the upload's receipt); without
    /// it, or when it gives no dictionary, the field is left out.
    package func requestDictionary(for record: CKRecord, keys: [String]) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        for key in keys {
            guard let value = record[key] else {
                fields[key] = ["value": .null]
                continue
            }
            fields[key] = fieldDictionary(for: value, numbersAsStrings: false)
        }
        var members: [String: JSONValue] = [
            "recordName": .string(record.recordID.recordName),
            "recordType": .string(record.recordType),
            "zoneID": dictionary(for: record.recordID.zoneID),
            "fields": .object(fields),
        ]
        members["recordChangeTag"] = record.recordChangeTag.map(JSONValue.string)
        if let parent = record.parent {
            members["parent"] = dictionary(for: parent)
        } else if record.parentWasChanged {
            members["parent"] = .null
        }
        return .object(members)
    }
}
