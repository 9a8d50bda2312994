import Foundation
package import Stratus

/// Record dictionaries written straight into an answer's bytes (``JSONWriter``): the bytes
/// ``dictionary(for:numbersAsStrings:desiredKeys:)`` serializes to, without the tree.
extension WSRecordTranslator {
    /// The record dictionary of `record` as JSON, written without building it: the bytes of
    /// ``dictionary(for:numbersAsStrings:desiredKeys:)`` serialized.
    package func serializedDictionary(for record: CKRecord, numbersAsStrings: Bool, desiredKeys: [String]?)
        -> [UInt8]
    {
        var out = JSONWriter()
        write(record, numbersAsStrings: numbersAsStrings, desiredKeys: desiredKeys, into: &out)
        return out.bytes
    }

    /// Writes the record dictionary of `record` (members in the serializer's sorted order).
    package func write(_ record: CKRecord, numbersAsStrings: Bool, desiredKeys: [String]?, into out: inout JSONWriter) {
        out.object { members in
            if let date = record.creationDate {
                members.member("created") { writeChange(date, by: record.creatorUserRecordID, into: &$0) }
            }
            members.member("deleted") { $0.bool(false) }
            members.member("fields") { fields in
                fields.object {
                    writeStoredFields(of: record, numbersAsStrings: numbersAsStrings, desiredKeys, into: &$0)
                }
            }
            if let date = record.modificationDate {
                members.member("modified") { writeChange(date, by: record.lastModifiedUserRecordID, into: &$0) }
            }
            if let parent = record.parent {
                members.member("parent") { $0.value(dictionary(for: parent)) }
            }
            if let tag = record.recordChangeTag {
                members.member("recordChangeTag") { $0.string(tag) }
            }
            members.member("recordName") { $0.string(record.recordID.recordName) }
            members.member("recordType") { $0.string(record.recordType) }
            members.member("zoneID") { write(record.recordID.zoneID, into: &$0) }
        }
    }

    /// Writes the zone ID dictionary of `zoneID` (``dictionary(for:)-(CKRecordZone.ID)``).
    package func write(_ zoneID: CKRecordZone.ID, into out: inout JSONWriter) {
        let owner =
            zoneID.ownerName == CKCurrentUserDefaultName
            ? (callerRecordName ?? CKCurrentUserDefaultName) : zoneID.ownerName
        out.object { members in
            members.member("ownerRecordName") { $0.string(owner) }
            members.member("zoneName") { $0.string(zoneID.zoneName) }
        }
    }

    /// `names` ascending without repeats, in the serializer's order (a record's own keys
    /// usually are already).
    static func sortedNames(_ names: [String]) -> [String] {
        if zip(names, names.dropFirst()).allSatisfy({ $0 < $1 }) { return names }
        return Set(names).sorted()
    }

    /// `{deviceID, timestamp, userRecordName}` (``change(_:by:)``'s bytes).
    private func writeChange(_ date: Date, by user: CKRecord.ID?, into out: inout JSONWriter) {
        out.object { members in
            members.member("deviceID") { $0.string(WSRecordTranslator.deviceID) }
            members.member("timestamp") { $0.integer(WSRecordTranslator.milliseconds(date)) }
            if let name = user?.recordName {
                members.member("userRecordName") {
                    $0.string(name == CKCurrentUserDefaultName ? (callerRecordName ?? name) : name)
                }
            }
        }
    }
}
