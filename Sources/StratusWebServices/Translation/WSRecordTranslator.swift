package import Stratus

/// Translates between CloudKit Web Services record dictionaries and Stratus records (decision
/// 0012.6): requests into `CKRecord`s for the engine, records into response dictionaries.
///
/// Record names, zone names and field names are the engine's to validate; the translator checks
/// only JSON shapes and type tags. A zone owner of `__defaultOwner__`, absent, or the caller's
/// own user record name is the caller's zone (`CKCurrentUserDefaultName`); other owners are
/// kept as given, for the endpoint to refuse (`ZONE_NOT_FOUND`).
package struct WSRecordTranslator: Sendable {
    /// The `deviceID` of `created` and `modified` (constant: 0012.11).
    package static let deviceID = "stratusd"

    /// The caller's user record name, written as the owner of their zones in responses; `nil`
    /// writes `__defaultOwner__`.
    package var callerRecordName: String?

    /// Reads receipts and writes download URLs for ASSET fields; without it, ASSET fields are
    /// refused in requests and omitted from responses.
    package var assets: (any WSAssetCoding)?

    /// A translator for `callerRecordName`'s requests.
    package init(callerRecordName: String? = nil, assets: (any WSAssetCoding)? = nil) {
        self.callerRecordName = callerRecordName
        self.assets = assets
    }

    // MARK: Zone IDs

    /// The zone a zone ID dictionary names.
    package func zoneID(from dictionary: WSZoneID) -> CKRecordZone.ID {
        CKRecordZone.ID(zoneName: dictionary.zoneName, ownerName: ownerName(dictionary.ownerRecordName))
    }

    /// The zone ID dictionary `{zoneName, ownerRecordName}` of `zoneID`.
    package func dictionary(for zoneID: CKRecordZone.ID) -> JSONValue {
        ["zoneName": .string(zoneID.zoneName), "ownerRecordName": .string(ownerRecordName(of: zoneID))]
    }

    /// The `ownerRecordName` written for `zoneID`: the caller's record name for their own zones.
    package func ownerRecordName(of zoneID: CKRecordZone.ID) -> String {
        zoneID.ownerName == CKCurrentUserDefaultName ? (callerRecordName ?? CKCurrentUserDefaultName) : zoneID.ownerName
    }

    /// The engine's owner name for an `ownerRecordName` a client sent.
    private func ownerName(_ ownerRecordName: String?) -> String {
        guard let ownerRecordName, ownerRecordName != callerRecordName else { return CKCurrentUserDefaultName }
        return ownerRecordName
    }

    // MARK: Records

    /// The ID a record dictionary names: its `recordName` (a new UUID name when absent) in its
    /// `zoneID`, or `defaultZone` (the request's zone) when it has none.
    package func recordID(from dictionary: WSRecordDictionary, defaultZone: CKRecordZone.ID) -> CKRecord.ID {
        let zone = dictionary.zoneID.map(zoneID(from:)) ?? defaultZone
        guard let name = dictionary.recordName else { return CKRecord.ID(zoneID: zone) }
        return CKRecord.ID(recordName: name, zoneID: zone)
    }

    /// A record to save, built from a record dictionary: its ID (``recordID(from:defaultZone:)``),
    /// type, parent and every field in `fields` set — to `nil` for `{value: null}` — so each is
    /// among the record's changed keys. `recordChangeTag` is not applied (the endpoint passes it
    /// to the engine's save mode).
    ///
    /// - Throws: ``WSTranslationError`` naming the field and tag for a value that is not of its
    ///   tag, an unknown tag, a mixed list, an asset whose receipt fails, a `VALIDATE` reference or
    ///   a non-finite number; or for a missing `recordType` or a malformed `parent`.
    package func record(
        from dictionary: WSRecordDictionary, defaultZone: CKRecordZone.ID
    ) throws(WSTranslationError) -> CKRecord {
        guard let recordType = dictionary.recordType else {
            throw WSTranslationError(reason: "recordType is required to save a record")
        }
        let id = recordID(from: dictionary, defaultZone: defaultZone)
        let record = CKRecord(recordType: recordType, recordID: id)
        var fields: [(key: String, value: (any CKRecordValue)?)] = []
        for (name, field) in (dictionary.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            fields.append((name, try value(of: field, named: name, zone: id.zoneID)))
        }
        record.setObjects(fields)
        if let parent = dictionary.parent {
            record.parent = try parentReference(parent, zone: id.zoneID)
        }
        return record
    }

    /// The parent reference of a dictionary's `parent`; `nil` for `null`.
    private func parentReference(_ value: JSONValue, zone: CKRecordZone.ID) throws(WSTranslationError) -> CKRecord
        .Reference?
    {
        if value == .null { return nil }
        do throws(WSValueProblem) {
            return try reference(value, zone: zone)
        } catch {
            throw WSTranslationError(reason: "parent: \(error.message)")
        }
    }
}
