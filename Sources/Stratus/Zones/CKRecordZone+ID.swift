public import Foundation

/// The name CloudKit uses for the current user as a zone owner: `__defaultOwner__`.
public let CKCurrentUserDefaultName = "__defaultOwner__"

extension CKRecordZone {
    /// A zone's identity: its name and its owner's name.
    public typealias ID = CKRecordZoneID
}

/// A zone's identity: its name and its owner's name (`CKRecordZone.ID` in Swift).
///
/// The class is top-level, as in CloudKit's Objective-C API, because swift-corelibs-foundation's
/// `NSKeyedArchiver` archives only top-level classes.
public final class CKRecordZoneID: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The name of the default zone: `_defaultZone`.
    public static let defaultZoneName = "_defaultZone"
    /// The default zone of the current user.
    public static let `default` = CKRecordZoneID()

    /// The zone's name.
    public let zoneName: String
    /// The name of the zone's owner (`__defaultOwner__` for the current user).
    public let ownerName: String

    /// A zone ID; by default the current user's default zone.
    public init(
        zoneName: String = CKRecordZone.ID.defaultZoneName,
        ownerName: String = CKCurrentUserDefaultName
    ) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// Whether this is the default zone's ID.
    var isDefaultZone: Bool { zoneName == CKRecordZone.ID.defaultZoneName }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordZoneID else { return false }
        return zoneName == other.zoneName && ownerName == other.ownerName
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(zoneName)
        hasher.combine(ownerName)
        return hasher.finalize()
    }

    public override var description: String {
        "<CKRecordZoneID: zoneName=\(zoneName), ownerName=\(ownerName)>"
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(zoneName as NSString, forKey: "ZoneName")
        coder.encode(ownerName as NSString, forKey: "OwnerName")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard
            let zoneName = coder.decodeObject(of: NSString.self, forKey: "ZoneName"),
            let ownerName = coder.decodeObject(of: NSString.self, forKey: "OwnerName")
        else { return nil }
        self.zoneName = zoneName as String
        self.ownerName = ownerName as String
    }
}

extension CKRecordZoneID {
    /// The same object: it is immutable, so a copy is indistinguishable from it.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
