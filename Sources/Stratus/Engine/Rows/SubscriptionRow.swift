import Foundation

/// A subscription as stored: `DatabaseKeys.subscription(id)`. Also the archived form of a
/// `CKSubscription` (`NSSecureCoding`).
struct SubscriptionRow: Sendable, Equatable {
    /// What the subscription watches.
    enum Kind: Sendable, Equatable {
        /// A `CKQuerySubscription`.
        case query(recordType: String, predicate: StoredPredicate, zoneID: ZoneName?, options: UInt)
        /// A `CKRecordZoneSubscription`.
        case recordZone(zoneID: ZoneName, recordType: String?)
        /// A `CKDatabaseSubscription`.
        case database(recordType: String?)
    }

    /// A zone ID as plain strings (`CKRecordZone.ID` is a class).
    struct ZoneName: Sendable, Equatable {
        var zoneName: String
        var ownerName: String

        init(_ zoneID: CKRecordZone.ID) {
            zoneName = zoneID.zoneName
            ownerName = zoneID.ownerName
        }

        init(zoneName: String, ownerName: String) {
            self.zoneName = zoneName
            self.ownerName = ownerName
        }

        var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName) }
    }

    /// A `CKSubscription.NotificationInfo` as plain values.
    struct Info: Sendable, Equatable {
        var alertBody: String?
        var alertLocalizationKey: String?
        var alertLocalizationArgs: [String]?
        var title: String?
        var titleLocalizationKey: String?
        var titleLocalizationArgs: [String]?
        var subtitle: String?
        var subtitleLocalizationKey: String?
        var subtitleLocalizationArgs: [String]?
        var alertActionLocalizationKey: String?
        var alertLaunchImage: String?
        var soundName: String?
        var desiredKeys: [String]?
        var shouldBadge = false
        var shouldSendContentAvailable = false
        var shouldSendMutableContent = false
        var category: String?
        var collapseIDKey: String?
    }

    var subscriptionID: String
    var kind: Kind
    var notificationInfo: Info?

    /// The subscription type's raw value (`CKSubscription.SubscriptionType`).
    var typeNumber: UInt8 {
        switch kind {
        case .query: return 1
        case .recordZone: return 2
        case .database: return 3
        }
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(subscriptionID)
        w.write(typeNumber)
        switch kind {
        case .query(let recordType, let predicate, let zoneID, let options):
            w.write(recordType)
            predicate.write(to: &w)
            if let zoneID {
                w.write(UInt8(1))
                w.write(zoneID.zoneName)
                w.write(zoneID.ownerName)
            } else {
                w.write(UInt8(0))
            }
            w.write(UInt64(options))
        case .recordZone(let zoneID, let recordType):
            w.write(zoneID.zoneName)
            w.write(zoneID.ownerName)
            w.write(optional: recordType)
        case .database(let recordType):
            w.write(optional: recordType)
        }
        if let info = notificationInfo {
            w.write(UInt8(1))
            info.write(to: &w)
        } else {
            w.write(UInt8(0))
        }
        return w.bytes
    }

    init(subscriptionID: String, kind: Kind, notificationInfo: Info?) {
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.notificationInfo = notificationInfo
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        subscriptionID = try r.readString()
        switch try r.readByte() {
        case 1:
            let recordType = try r.readString()
            let predicate = try StoredPredicate(reading: &r)
            let zoneID: ZoneName? =
                try r.readByte() == 1 ? ZoneName(zoneName: try r.readString(), ownerName: try r.readString()) : nil
            let options = try r.readUInt64()
            guard options <= UInt64(UInt.max) else { throw EngineError.corruptValue }
            kind = .query(recordType: recordType, predicate: predicate, zoneID: zoneID, options: UInt(options))
        case 2:
            let zoneID = ZoneName(zoneName: try r.readString(), ownerName: try r.readString())
            kind = .recordZone(zoneID: zoneID, recordType: try r.readOptionalString())
        case 3:
            kind = .database(recordType: try r.readOptionalString())
        default:
            throw EngineError.corruptValue
        }
        notificationInfo = try r.readByte() == 1 ? try Info(reading: &r) : nil
    }
}

extension SubscriptionRow.Info {
    func write(to w: inout ByteWriter) {
        w.write(optional: alertBody)
        w.write(optional: alertLocalizationKey)
        Self.write(alertLocalizationArgs, to: &w)
        w.write(optional: title)
        w.write(optional: titleLocalizationKey)
        Self.write(titleLocalizationArgs, to: &w)
        w.write(optional: subtitle)
        w.write(optional: subtitleLocalizationKey)
        Self.write(subtitleLocalizationArgs, to: &w)
        w.write(optional: alertActionLocalizationKey)
        w.write(optional: alertLaunchImage)
        w.write(optional: soundName)
        Self.write(desiredKeys, to: &w)
        var flags: UInt8 = 0
        if shouldBadge { flags |= 1 }
        if shouldSendContentAvailable { flags |= 2 }
        if shouldSendMutableContent { flags |= 4 }
        w.write(flags)
        w.write(optional: category)
        w.write(optional: collapseIDKey)
    }

    init(reading r: inout ByteReader) throws {
        alertBody = try r.readOptionalString()
        alertLocalizationKey = try r.readOptionalString()
        alertLocalizationArgs = try Self.readStrings(&r)
        title = try r.readOptionalString()
        titleLocalizationKey = try r.readOptionalString()
        titleLocalizationArgs = try Self.readStrings(&r)
        subtitle = try r.readOptionalString()
        subtitleLocalizationKey = try r.readOptionalString()
        subtitleLocalizationArgs = try Self.readStrings(&r)
        alertActionLocalizationKey = try r.readOptionalString()
        alertLaunchImage = try r.readOptionalString()
        soundName = try r.readOptionalString()
        desiredKeys = try Self.readStrings(&r)
        let flags = try r.readByte()
        shouldBadge = flags & 1 != 0
        shouldSendContentAvailable = flags & 2 != 0
        shouldSendMutableContent = flags & 4 != 0
        category = try r.readOptionalString()
        collapseIDKey = try r.readOptionalString()
    }

    private static func write(_ strings: [String]?, to w: inout ByteWriter) {
        guard let strings else {
            w.write(UInt8(0))
            return
        }
        w.write(UInt8(1))
        w.writeVarint(strings.count)
        for string in strings { w.write(string) }
    }

    private static func readStrings(_ r: inout ByteReader) throws -> [String]? {
        guard try r.readByte() == 1 else { return nil }
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        var strings: [String] = []
        for _ in 0..<count { strings.append(try r.readString()) }
        return strings
    }
}
