public import Foundation

/// A zone: a named group of records in a database, the unit of change tracking and atomicity.
public final class CKRecordZone: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// What a zone supports.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        /// The raw value.
        public let rawValue: UInt
        /// Creates capabilities from their raw value.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The zone supports `CKFetchRecordZoneChangesOperation`.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// Batches that touch the zone apply completely or not at all.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// Record hierarchies in the zone can be shared.
        public static let sharing = Capabilities(rawValue: 1 << 2)
        /// The whole zone can be shared.
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

    /// How a zone's data is encrypted.
    public enum EncryptionScope: Int, Sendable {
        /// Each record has its own key.
        case perRecord = 0
        /// One key for the whole zone.
        case perZone = 1
    }

    /// The zone's ID.
    public let zoneID: CKRecordZone.ID
    /// What the zone supports. Meaningful only on a zone fetched or saved on the server.
    public internal(set) var capabilities: Capabilities
    /// The zone's encryption scope.
    public var encryptionScope: EncryptionScope = .perRecord
    /// The zone-wide share, if any (sharing is not supported by Stratus yet).
    public internal(set) var share: CKRecord.Reference?

    /// A zone named `zoneName`, owned by the current user.
    public convenience init(zoneName: String) {
        self.init(zoneID: CKRecordZone.ID(zoneName: zoneName, ownerName: CKCurrentUserDefaultName))
    }

    /// A zone with `zoneID`.
    public init(zoneID: CKRecordZone.ID) {
        self.zoneID = zoneID
        self.capabilities = []
    }

    package init(zoneID: CKRecordZone.ID, capabilities: Capabilities) {
        self.zoneID = zoneID
        self.capabilities = capabilities
    }

    /// The current user's default zone.
    public static func `default`() -> CKRecordZone {
        CKRecordZone(zoneID: .default, capabilities: [])
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordZone else { return false }
        return zoneID == other.zoneID && capabilities == other.capabilities
    }

    public override var hash: Int { zoneID.hash }

    public override var description: String {
        "<CKRecordZone: zoneID=\(zoneID.zoneName):\(zoneID.ownerName), capabilities=\(capabilities.rawValue)>"
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(zoneID, forKey: "ZoneID")
        coder.encode(Int64(capabilities.rawValue), forKey: "Capabilities")
        coder.encode(Int64(encryptionScope.rawValue), forKey: "EncryptionScope")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard let zoneID = coder.decodeObject(of: CKRecordZone.ID.self, forKey: "ZoneID") else {
            return nil
        }
        self.zoneID = zoneID
        self.capabilities = Capabilities(rawValue: UInt(coder.decodeInt64(forKey: "Capabilities")))
        self.encryptionScope =
            EncryptionScope(rawValue: Int(coder.decodeInt64(forKey: "EncryptionScope"))) ?? .perRecord
    }
}

extension CKRecordZone {
    /// A new zone object with the same ID, capabilities, encryption scope and share.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKRecordZone(zoneID: zoneID)
        copy.capabilities = capabilities
        copy.encryptionScope = encryptionScope
        copy.share = share
        return copy
    }
}
