import Foundation

/// A value in a notification payload (decision 0014.3): what stratusd renders as JSON.
package enum NotificationPayloadValue: Sendable, Equatable {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case integer(Int64)
    /// A JSON number with a fraction.
    case double(Double)
    /// A JSON array of strings (`loc-args`).
    case strings([String])
    /// A JSON object.
    case object([String: NotificationPayloadValue])
}

/// One entry of a user's notification log (decision 0014.2): `07 (n_U) 01 (position)` → the
/// time, the subscription ID and the payload fields, in the engine's `ByteWriter` form.
package struct NotificationEntry: Sendable, Equatable {
    /// Which kind of subscription fired: `qry`, `fet` or `met` in the payload.
    package enum Kind: UInt8, Sendable {
        /// A `CKQuerySubscription` fired (`qry`).
        case query = 1
        /// A `CKRecordZoneSubscription` fired (`fet`).
        case recordZone = 2
        /// A `CKDatabaseSubscription` fired (`met`).
        case database = 3
    }

    /// The entry's position in its log: gap-free and in commit order per user.
    package var position: Int64 = 0
    /// The notification ID (`ck.nid`), the same on every delivery of this entry.
    package var notificationID: String
    /// When the committing transaction ran (seconds since the reference date).
    package var time: Double
    /// The subscription that fired (`sid`).
    package var subscriptionID: String
    /// Which kind of subscription it is.
    package var kind: Kind
    /// The database's `CKDatabase.Scope` raw value (`dbs`).
    package var databaseScope: Int
    /// The zone (`zid`) of a query or zone notification.
    package var zoneName: String?
    /// The zone's owner (`zoo`).
    package var zoneOwner: String?
    /// The record (`rid`) of a query notification.
    package var recordName: String?
    /// `CKQueryNotification.Reason` raw value (`fo`) for a query notification, else 0.
    package var reason: UInt8 = 0
    /// The `desiredKeys` fields of the record (`af`).
    package var recordFields: [String: NotificationPayloadValue] = [:]
    /// The subscription's notification info when it fired (the `aps` part).
    var info: SubscriptionRow.Info?

    init(
        subscriptionID: String, kind: Kind, databaseScope: Int, time: Double, info: SubscriptionRow.Info?
    ) {
        self.notificationID = UUID().uuidString
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.databaseScope = databaseScope
        self.time = time
        self.info = info
    }

    /// CloudKit truncates payload strings longer than this (decision 0014.3).
    static let maximumStringLength = 100

    static func truncated(_ string: String) -> String {
        string.count > maximumStringLength ? String(string.prefix(maximumStringLength)) : string
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(notificationID)
        w.write(time)
        w.write(subscriptionID)
        w.write(kind.rawValue)
        w.write(Int64(databaseScope))
        w.write(optional: zoneName)
        w.write(optional: zoneOwner)
        w.write(optional: recordName)
        w.write(reason)
        w.writeVarint(recordFields.count)
        for (key, value) in recordFields.sorted(by: { $0.key < $1.key }) {
            w.write(key)
            switch value {
            case .integer(let int):
                w.write(UInt8(2))
                w.write(int)
            case .double(let double):
                w.write(UInt8(3))
                w.write(double)
            case .string(let string):
                w.write(UInt8(1))
                w.write(string)
            case .strings, .object:
                w.write(UInt8(1))
                w.write("")
            }
        }
        if let info {
            w.write(UInt8(1))
            info.write(to: &w)
        } else {
            w.write(UInt8(0))
        }
        return w.bytes
    }

    init(decoding bytes: [UInt8], position: Int64) throws {
        var r = ByteReader(bytes)
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        self.position = position
        notificationID = try r.readString()
        time = try r.readDouble()
        subscriptionID = try r.readString()
        guard let kind = Kind(rawValue: try r.readByte()) else { throw EngineError.corruptValue }
        self.kind = kind
        databaseScope = Int(try r.readInt64())
        zoneName = try r.readOptionalString()
        zoneOwner = try r.readOptionalString()
        recordName = try r.readOptionalString()
        reason = try r.readByte()
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        for _ in 0..<count {
            let key = try r.readString()
            switch try r.readByte() {
            case 1: recordFields[key] = .string(try r.readString())
            case 2: recordFields[key] = .integer(try r.readInt64())
            case 3: recordFields[key] = .double(try r.readDouble())
            default: throw EngineError.corruptValue
            }
        }
        info = try r.readByte() == 1 ? try SubscriptionRow.Info(reading: &r) : nil
    }
}
