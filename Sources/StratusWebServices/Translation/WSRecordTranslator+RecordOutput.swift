import Foundation
package import Stratus

/// Record dictionaries out (Apple's *Record Dictionary*).
extension WSRecordTranslator {
    /// The record dictionary of `record`: `recordName`, `recordType`, `recordChangeTag`,
    /// `fields` (`{name: {value, type}}`, only `desiredKeys` when given — `[]` for none),
    /// `created` / `modified` (`{timestamp, userRecordName, deviceID}`, once saved),
    /// `zoneID`, `parent` when set, and `deleted: false`.
    ///
    /// `numbersAsStrings` writes INT64 and DOUBLE values (and their lists) as strings.
    package func dictionary(for record: CKRecord, numbersAsStrings: Bool, desiredKeys: [String]?) -> JSONValue {
        var members: [String: JSONValue] = [
            "recordName": .string(record.recordID.recordName),
            "recordType": .string(record.recordType),
            "zoneID": dictionary(for: record.recordID.zoneID),
            "fields": .object(fields(of: record, numbersAsStrings: numbersAsStrings, desiredKeys: desiredKeys)),
            "deleted": false,
        ]
        members["recordChangeTag"] = record.recordChangeTag.map(JSONValue.string)
        members["created"] = change(record.creationDate, by: record.creatorUserRecordID)
        members["modified"] = change(record.modificationDate, by: record.lastModifiedUserRecordID)
        members["parent"] = record.parent.map(dictionary(for:))
        return .object(members)
    }

    /// The dictionary of a deleted record, as change feeds list it: `{recordName, zoneID,
    /// deleted: true}`, plus `recordType` when known (an addition to Apple's; harmless).
    package func tombstone(for recordID: CKRecord.ID, recordType: String?) -> JSONValue {
        var members: [String: JSONValue] = [
            "recordName": .string(recordID.recordName),
            "zoneID": dictionary(for: recordID.zoneID),
            "deleted": true,
        ]
        members["recordType"] = recordType.map(JSONValue.string)
        return .object(members)
    }

    private func fields(of record: CKRecord, numbersAsStrings: Bool, desiredKeys: [String]?) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for key in desiredKeys ?? record.allKeys() {
            guard let value = record[key] else { continue }
            // Nil for assets when there is no asset coder (see fieldDictionary(for:)).
            fields[key] = fieldDictionary(for: value, numbersAsStrings: numbersAsStrings)
        }
        return fields
    }

    /// `{timestamp, userRecordName, deviceID}`; `nil` before the record was saved.
    private func change(_ date: Date?, by user: CKRecord.ID?) -> JSONValue? {
        guard let date else { return nil }
        var members: [String: JSONValue] = [
            "timestamp": .integer(WSRecordTranslator.milliseconds(date)),
            "deviceID": .string(WSRecordTranslator.deviceID),
        ]
        if let name = user?.recordName {
            members["userRecordName"] = .string(name == CKCurrentUserDefaultName ? (callerRecordName ?? name) : name)
        }
        return .object(members)
    }
}
