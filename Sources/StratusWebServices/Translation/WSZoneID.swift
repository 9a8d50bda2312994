/// A zone ID dictionary `{zoneName, ownerRecordName?}` as a client sends it.
package struct WSZoneID: Decodable, Hashable, Sendable {
    /// The zone's name (`_defaultZone` for the default zone).
    package var zoneName: String
    /// The owner's user record name; absent or `__defaultOwner__` means the caller.
    package var ownerRecordName: String?

    /// A zone ID dictionary.
    package init(zoneName: String, ownerRecordName: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }
}
