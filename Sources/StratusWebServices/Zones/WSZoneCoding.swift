package import Stratus

/// Zone dictionaries both ways (Apple's *Zone Dictionary*): what zones/list, zones/lookup and
/// zones/modify answer, and the `zone` of a zones/modify operation.
///
/// The wire carries a zone's ID and `atomic` only: a zone read back has the capabilities the
/// engine gives such a zone (an atomic zone is a custom zone: `fetchChanges` and `atomic`),
/// and the default `encryptionScope`.
package enum WSZoneCoding {
    /// A zone as the server writes it in answers and as a zones/modify operation's `zone`:
    /// `{zoneID, atomic}`, the owner written by `translator` (the caller's own zones under
    /// `__defaultOwner__` without a caller record name).
    package static func dictionary(for zone: CKRecordZone, translator: WSRecordTranslator = WSRecordTranslator())
        -> JSONValue
    {
        ["zoneID": translator.dictionary(for: zone.zoneID), "atomic": .bool(zone.capabilities.contains(.atomic))]
    }

    /// An answer's zone dictionary as a `CKRecordZone`, its owner read by `translator` (the
    /// caller's record name is the current user).
    ///
    /// - Throws: ``WSTranslationError`` for a dictionary without a `zoneID {zoneName}`.
    package static func zone(from json: JSONValue, translator: WSRecordTranslator = WSRecordTranslator())
        throws(WSTranslationError) -> CKRecordZone
    {
        guard let idValue = json["zoneID"] else {
            throw WSTranslationError(field: "zoneID", reason: "a zone dictionary needs zoneID")
        }
        let id: WSZoneID
        do {
            id = try JSONValueDecoder().decode(WSZoneID.self, from: idValue)
        } catch {
            throw WSTranslationError(field: "zoneID", reason: "zoneID: \(error)")
        }
        let capabilities: CKRecordZone.Capabilities = json["atomic"] == .bool(true) ? [.fetchChanges, .atomic] : []
        return CKRecordZone(zoneID: translator.zoneID(from: id), capabilities: capabilities)
    }
}
