import Foundation
package import Stratus

/// Record dictionaries of a zone's changes written straight from the change log's entries
/// (``StoredChangedRecord``), without a `CKRecord` for each: the bytes
/// ``write(_:numbersAsStrings:desiredKeys:into:)`` writes for the `CKRecord` of the same fetch.
extension WSRecordTranslator {
    /// Writes the record dictionary of `record`, a record of the zone `zoneID` (members in the
    /// serializer's sorted order); `zone` is ``writtenZone(_:)`` of `zoneID`, made once per batch.
    package func write(
        _ record: StoredChangedRecord, zone: WrittenZone, numbersAsStrings: Bool, into out: inout JSONWriter
    ) {
        out.object { members in
            members.member("created") {
                writeChange(record.creationDate, by: record.creatorUserRecordName, into: &$0)
            }
            members.member("deleted") { $0.bool(false) }
            members.member("fields") { fields in
                fields.object {
                    writeStoredFields(
                        record.fieldNames, record.fieldValues, numbersAsStrings: numbersAsStrings, nil, into: &$0)
                }
            }
            members.member("modified") {
                writeChange(record.modificationDate, by: record.lastModifiedUserRecordName, into: &$0)
            }
            if let parent = record.parent {
                members.member("parent") { $0.value(dictionary(for: parent)) }
            }
            members.member("recordChangeTag") { $0.string(record.recordChangeTag) }
            members.member("recordName") { $0.string(record.recordName) }
            members.member("recordType") { $0.string(record.recordType) }
            members.member("zoneID") { write(zone, into: &$0) }
        }
    }

    /// A zone ID's dictionary as ``write(_:into:)-(CKRecordZone.ID)`` writes it, its names
    /// resolved once for a batch of records.
    package struct WrittenZone: Sendable {
        fileprivate let ownerRecordName: String
        fileprivate let zoneName: String
    }

    /// `zoneID` ready to be written after each record of a batch.
    package func writtenZone(_ zoneID: CKRecordZone.ID) -> WrittenZone {
        let owner =
            zoneID.ownerName == CKCurrentUserDefaultName
            ? (callerRecordName ?? CKCurrentUserDefaultName) : zoneID.ownerName
        return WrittenZone(ownerRecordName: owner, zoneName: zoneID.zoneName)
    }

    private func write(_ zone: WrittenZone, into out: inout JSONWriter) {
        out.object { members in
            members.member("ownerRecordName") { $0.string(zone.ownerRecordName) }
            members.member("zoneName") { $0.string(zone.zoneName) }
        }
    }

    /// `{deviceID, timestamp, userRecordName}` of a stored record's change by the user `name`,
    /// the caller's own name for `__defaultOwner__` (``change(_:by:)``'s bytes).
    private func writeChange(_ date: Date, by name: String, into out: inout JSONWriter) {
        out.object { members in
            members.member("deviceID") { $0.string(WSRecordTranslator.deviceID) }
            members.member("timestamp") { $0.integer(WSRecordTranslator.milliseconds(date)) }
            members.member("userRecordName") {
                $0.string(name == CKCurrentUserDefaultName ? (callerRecordName ?? name) : name)
            }
        }
    }
}
