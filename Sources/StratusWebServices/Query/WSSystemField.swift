/// The system field names of filter and sort dictionaries (`systemFieldName`, Apple's
/// *Querying Records*) and the engine's keys for them.
package enum WSSystemField {
    /// `systemFieldName` → the engine's query key. `share` is absent: sharing is not in the
    /// engine (decision 0012.11).
    package static let keys: [String: String] = [
        "recordName": "___recordID", "createdTimestamp": "___createTime", "modifiedTimestamp": "___modTime",
        "createdUserRecordName": "___createdBy", "modifiedUserRecordName": "___modifiedBy", "parent": "___parent",
    ]

    /// The `systemFieldName` of an engine key — its query key (`___createTime`) or the name a
    /// format string uses (`creationDate`); `nil` for a record field.
    package static func name(forKey key: String) -> String? {
        if let name = keys.first(where: { $0.value == key })?.key { return name }
        return aliases[key]
    }

    /// The format-string names of the system fields, by `systemFieldName`.
    private static let aliases: [String: String] = [
        "recordID": "recordName", "recordName": "recordName", "creationDate": "createdTimestamp",
        "modificationDate": "modifiedTimestamp", "creatorUserRecordID": "createdUserRecordName",
        "lastModifiedUserRecordID": "modifiedUserRecordName", "parent": "parent",
    ]

    /// The engine keys whose values are references named by a record name.
    package static let referenceKeys: Set<String> = ["___recordID", "___createdBy", "___modifiedBy", "___parent"]
    /// The engine keys whose values are timestamps.
    package static let timestampKeys: Set<String> = ["___createTime", "___modTime"]

    /// The engine's key for a filter's or sort's `fieldName` / `systemFieldName`.
    ///
    /// - Throws: ``WSTranslationError`` for neither or both given, or an unknown system field.
    package static func key(fieldName: String?, systemFieldName: String?) throws(WSTranslationError) -> String {
        switch (fieldName, systemFieldName) {
        case (let name?, nil):
            return name
        case (nil, let system?):
            guard let key = keys[system] else {
                let names = keys.keys.sorted().joined(separator: ", ")
                throw WSTranslationError(
                    reason: "systemFieldName '\(system)' is not one stratusd supports (the names are \(names))")
            }
            return key
        case (.some, .some):
            throw WSTranslationError(reason: "give fieldName or systemFieldName, not both")
        case (nil, nil):
            throw WSTranslationError(reason: "fieldName (or systemFieldName) is required")
        }
    }
}
