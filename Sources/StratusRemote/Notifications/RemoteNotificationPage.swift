import Foundation
import Stratus
import StratusWebServices

/// One answer of the courier's long-poll (decision 0014.4), read: `{"notifications":
/// [{"position", "payload"}], "cursor", "resetRequired"}`, each payload made the
/// `CKNotification` that `CKNotification(fromRemoteNotificationDictionary:)` makes of it.
struct RemoteNotificationPage {
    /// One entry of the user's notification log.
    struct Entry {
        /// Its position: gap-free and in commit order per user, the same on every delivery.
        var position: Int64
        /// The notification; `nil` for a payload that is not a CloudKit notification.
        var notification: CKNotification?
    }

    /// The entries, in the log's order.
    var entries: [Entry]
    /// Whether entries after the position asked for were dropped unacknowledged (retention).
    var resetRequired: Bool

    /// The page of `answer`.
    ///
    /// - Throws: `serverResponseLost` for an answer without the long-poll's shape.
    init(_ answer: JSONValue) throws(CKError) {
        guard case .array(let items) = answer["notifications"] else {
            throw RemoteFailure.error(.serverResponseLost, "the courier's answer has no 'notifications' array")
        }
        entries = []
        for item in items {
            guard case .integer(let position) = item["position"], let payload = item["payload"] else {
                throw RemoteFailure.error(
                    .serverResponseLost, "the courier answered an entry without position or payload")
            }
            let dictionary = Self.foundation(payload) as? [String: Any] ?? [:]
            entries.append(
                Entry(position: position, notification: CKNotification(fromRemoteNotificationDictionary: dictionary)))
        }
        resetRequired = answer["resetRequired"] == .bool(true)
    }

    /// What a reset stands for: a `CKDatabaseNotification` of the private database with no
    /// subscription ID and no zone, after which an app fetches its changes with its tokens.
    static func resetNotification(containerIdentifier: String) -> CKNotification? {
        let payload: [String: Any] = [
            "ck": ["cid": containerIdentifier, "met": ["dbs": NSNumber(value: CKDatabase.Scope.private.rawValue)]]
        ]
        return CKNotification(fromRemoteNotificationDictionary: payload)
    }

    /// `value` as `JSONSerialization` would give it: numbers as `NSNumber`, `null` as `NSNull`.
    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let bool): return NSNumber(value: bool)
        case .integer(let integer): return NSNumber(value: integer)
        case .double(let double): return NSNumber(value: double)
        case .string(let string): return string
        case .array(let array): return array.map(foundation)
        case .object(let object): return object.mapValues(foundation)
        }
    }
}
