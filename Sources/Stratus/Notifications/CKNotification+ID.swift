public import Foundation

extension CKNotification {
    /// A notification's unique identifier.
    public typealias ID = CKNotificationID
}

/// A notification's unique identifier (`CKNotification.ID` in Swift); a top-level class so that
/// `NSKeyedArchiver` can archive it on Linux.
public final class CKNotificationID: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The identifier's value, as in the push payload.
    let value: String

    init(_ value: String) {
        self.value = value
    }

    /// Whether `object` is the same notification ID.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKNotificationID else { return false }
        return value == other.value
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int { value.hashValue }

    /// A description for debugging.
    public override var description: String { "<CKNotificationID: \(value)>" }

    /// The identifier itself (identifiers are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the identifier.
    public func encode(with coder: NSCoder) {
        coder.encode(value as NSString, forKey: "NotificationID")
    }

    /// Re-creates an identifier archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard let value = coder.decodeObject(of: NSString.self, forKey: "NotificationID") else { return nil }
        self.value = value as String
    }
}
