import Foundation
package import Stratus

/// Record dictionaries of answers in: the client direction of
/// ``dictionary(for:numbersAsStrings:desiredKeys:)`` (decision 0016.2).
extension WSRecordTranslator {
    /// A record dictionary of an answer (records/modify, records/lookup, records/query,
    /// records/changes) as the `CKRecord` a CloudKit client gets back: its type, ID (`zoneID`
    /// from the dictionary, else `defaultZone`), fields, parent, and the system fields
    /// `recordChangeTag`, `created` and `modified` set as the engine's stored records have them,
    /// with no changed keys (a record just fetched from the server).
    ///
    /// ASSET fields are read by ``assets``; without it an answer holding one is refused.
    ///
    /// - Throws: ``WSTranslationError`` for a dictionary that is not a record (no `recordName`
    ///   or `recordType`, a member of the wrong kind) or a field that is not of its type.
    package func serverRecord(from json: JSONValue, defaultZone: CKRecordZone.ID) throws(WSTranslationError)
        -> CKRecord
    {
        let dictionary = try WSRecordDictionary(reading: json)
        guard dictionary.recordName != nil else {
            throw WSTranslationError(reason: "a record of an answer needs its recordName")
        }
        let record = try self.record(from: dictionary, defaultZone: defaultZone)
        let created = try change(json["created"], name: "created")
        let modified = try change(json["modified"], name: "modified")
        record.setServerSystemFields(
            creationDate: created?.date, modificationDate: modified?.date,
            creatorUserRecordName: created?.userRecordName, lastModifiedUserRecordName: modified?.userRecordName,
            recordChangeTag: dictionary.recordChangeTag)
        return record
    }

    /// The date and user of a `created` or `modified` dictionary `{timestamp, userRecordName,
    /// deviceID}`; `nil` when absent.
    private func change(_ value: JSONValue?, name: String) throws(WSTranslationError) -> (
        date: Date, userRecordName: String?
    )? {
        guard let value, value != .null else { return nil }
        guard let milliseconds = value["timestamp"] else {
            throw WSTranslationError(reason: "\(name): a timestamp is required")
        }
        let date: Date
        do throws(WSValueProblem) {
            date = try timestamp(milliseconds)
        } catch {
            throw WSTranslationError(reason: "\(name).timestamp: \(error.message)")
        }
        guard case .string(let user)? = value["userRecordName"] else { return (date, nil) }
        return (date, user)
    }
}
