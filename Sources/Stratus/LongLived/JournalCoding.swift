import Foundation
import StratusPredicate

/// The journal's encoding of CloudKit values (decision 0006): compact `ByteWriter` forms for
/// IDs, records (every field, the system fields, the changed keys and local asset files),
/// errors (code, message, retry delay, conflict records, per-item errors), tokens, zones and
/// subscriptions, queries and cursors (with every sort descriptor, location sorts included,
/// which `CKQuery`'s archive does not keep).
extension ByteWriter {
    mutating func write(bool value: Bool) { write(UInt8(value ? 1 : 0)) }

    mutating func write(optionalDouble value: Double?) { write(value ?? .nan) }

    mutating func write(optionalBytes value: Data?) {
        write(bool: value != nil)
        if let value { write(bytes: value) }
    }

    mutating func write(strings value: [String]?) {
        write(bool: value != nil)
        guard let value else { return }
        writeVarint(value.count)
        for string in value { write(string) }
    }

    mutating func write(zoneID: CKRecordZone.ID) {
        write(zoneID.zoneName)
        write(zoneID.ownerName)
    }

    mutating func write(recordID: CKRecord.ID) {
        write(recordID.recordName)
        write(zoneID: recordID.zoneID)
    }

    mutating func write(recordIDs: [CKRecord.ID]?) {
        write(bool: recordIDs != nil)
        guard let recordIDs else { return }
        writeVarint(recordIDs.count)
        for id in recordIDs { write(recordID: id) }
    }

    mutating func write(zoneIDs: [CKRecordZone.ID]?) {
        write(bool: zoneIDs != nil)
        guard let zoneIDs else { return }
        writeVarint(zoneIDs.count)
        for id in zoneIDs { write(zoneID: id) }
    }

    /// A whole record: ID, type, system fields, every field (with the local file of each
    /// asset) and the changed keys, so that a journaled record to save saves the same way.
    mutating func write(record: CKRecord) {
        let state = record.state.withLock { $0 }
        write(recordID: record.recordID)
        write(record.recordType)
        write(optional: state.system.changeTag)
        write(optionalDouble: state.system.creationDate?.timeIntervalSinceReferenceDate)
        write(optionalDouble: state.system.modificationDate?.timeIntervalSinceReferenceDate)
        write(optional: state.system.creatorUserRecordName)
        write(optional: state.system.lastModifiedUserRecordName)
        write(bool: state.system.parent != nil)
        if let parent = state.system.parent { FieldValueCodec.write(parent, to: &self) }
        write(bool: state.system.parentChanged)
        writeVarint(state.values.count)
        for (name, value) in state.values {
            write(name)
            FieldValueCodec.write(value, to: &self)
            let assets = value.assets
            writeVarint(assets.count)
            for asset in assets { write(optional: asset.pendingFile?.path) }
        }
        write(strings: state.changed.names)
    }

    mutating func write(optionalRecord record: CKRecord?) {
        write(bool: record != nil)
        if let record { write(record: record) }
    }

    /// An error: its code, message, retry delay, conflict records and per-item errors.
    mutating func write(error: CKError) {
        writeVarint(error.code.rawValue)
        write(error.message)
        write(optionalDouble: error.retryAfterSeconds)
        write(optionalRecord: error.serverRecord)
        write(optionalRecord: error.clientRecord)
        write(optionalRecord: error.ancestorRecord)
        let partial = error.userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: CKError] ?? [:]
        var items: [(UInt8, ByteWriter)] = []
        for (key, itemError) in partial {
            var item = ByteWriter()
            let kind: UInt8
            if let id = key.base as? CKRecord.ID {
                kind = 1
                item.write(recordID: id)
            } else if let id = key.base as? CKRecordZone.ID {
                kind = 2
                item.write(zoneID: id)
            } else if let id = key.base as? String {
                kind = 3
                item.write(id)
            } else {
                continue
            }
            item.write(error: itemError)
            items.append((kind, item))
        }
        writeVarint(items.count)
        for (kind, item) in items {
            write(kind)
            writeRaw(item.bytes)
        }
    }

    mutating func write(optionalError error: CKError?) {
        write(bool: error != nil)
        if let error { write(error: error) }
    }

    mutating func write(token: CKServerChangeToken) { write(bytes: token.data) }

    mutating func write(optionalToken token: CKServerChangeToken?) {
        write(bool: token != nil)
        if let token { write(token: token) }
    }

    mutating func write(zone: CKRecordZone) {
        write(zoneID: zone.zoneID)
        write(UInt64(zone.capabilities.rawValue))
        write(Int64(zone.encryptionScope.rawValue))
    }

    mutating func write(subscription: CKSubscription) {
        write(bytes: subscription.makeArchivedRow().encoded())
    }

    /// A query: record type, predicate (its format) and sort keys.
    mutating func write(query: CKQuery) throws {
        write(query.recordType)
        write(query.predicate.stratusPredicateFormat)
        let keys = try query.sortKeys()
        writeVarint(keys.count)
        for key in keys {
            write(key.key)
            write(bool: key.ascending)
            write(bool: key.relativeLocation != nil)
            if let location = key.relativeLocation {
                write(location.latitude)
                write(location.longitude)
            }
        }
    }

    mutating func write(optionalQuery query: CKQuery?) throws {
        write(bool: query != nil)
        if let query { try write(query: query) }
    }

    /// A cursor: its authenticated position, the query and the zone it continues.
    mutating func write(cursor: CKQueryCursor) throws {
        write(bytes: cursor.data)
        try write(query: cursor.query)
        write(bool: cursor.zoneID != nil)
        if let zoneID = cursor.zoneID { write(zoneID: zoneID) }
    }

    mutating func write(optionalCursor cursor: CKQueryCursor?) throws {
        write(bool: cursor != nil)
        if let cursor { try write(cursor: cursor) }
    }
}

extension ByteReader {
    mutating func readBool() throws -> Bool {
        switch try readByte() {
        case 0: return false
        case 1: return true
        default: throw EngineError.corruptValue
        }
    }

    mutating func readOptionalDouble() throws -> Double? {
        let value = try readDouble()
        return value.isNaN ? nil : value
    }

    mutating func readOptionalBytes() throws -> Data? {
        try readBool() ? Data(try readBytes()) : nil
    }

    mutating func readCount() throws -> Int {
        let count = try readVarint()
        guard count <= remaining else { throw EngineError.corruptValue }
        return count
    }

    mutating func readStrings() throws -> [String]? {
        guard try readBool() else { return nil }
        return try (0..<readCount()).map { _ in try readString() }
    }

    mutating func readZoneID() throws -> CKRecordZone.ID {
        CKRecordZone.ID(zoneName: try readString(), ownerName: try readString())
    }

    mutating func readRecordID() throws -> CKRecord.ID {
        CKRecord.ID(recordName: try readString(), zoneID: try readZoneID())
    }

    mutating func readRecordIDs() throws -> [CKRecord.ID]? {
        guard try readBool() else { return nil }
        return try (0..<readCount()).map { _ in try readRecordID() }
    }

    mutating func readZoneIDs() throws -> [CKRecordZone.ID]? {
        guard try readBool() else { return nil }
        return try (0..<readCount()).map { _ in try readZoneID() }
    }

    /// A record written by `write(record:)`. With `context`, a fetched asset whose local copy
    /// is gone (a temporary file of the previous process) is copied again from the store.
    mutating func readRecord(materializingIn context: DatabaseContext?) throws -> CKRecord {
        let id = try readRecordID()
        let type = try readString()
        var state = CKRecord.State()
        state.system.changeTag = try readOptionalString()
        state.system.creationDate = try readOptionalDouble().map(Date.init(timeIntervalSinceReferenceDate:))
        state.system.modificationDate = try readOptionalDouble().map(Date.init(timeIntervalSinceReferenceDate:))
        state.system.creatorUserRecordName = try readOptionalString()
        state.system.lastModifiedUserRecordName = try readOptionalString()
        if try readBool() { state.system.parent = try FieldValueCodec.read(from: &self) }
        state.system.parentChanged = try readBool()
        for _ in 0..<(try readCount()) {
            let name = try readString()
            let value = try FieldValueCodec.read(from: &self)
            let files = try (0..<readCount()).map { _ in try readOptionalString().map { URL(fileURLWithPath: $0) } }
            var remaining = files[...]
            state.values[name] = try value.attachingFiles(&remaining, context: context)
        }
        state.changed = ChangedKeys(try readStrings() ?? [])
        return CKRecord(recordType: type, recordID: id, state: state)
    }

    mutating func readOptionalRecord(materializingIn context: DatabaseContext?) throws -> CKRecord? {
        try readBool() ? try readRecord(materializingIn: context) : nil
    }

    mutating func readError(materializingIn context: DatabaseContext?) throws -> CKError {
        guard let code = CKError.Code(rawValue: try readVarint()) else { throw EngineError.corruptValue }
        let message = try readString()
        var userInfo: [String: Any] = [:]
        if let retry = try readOptionalDouble() { userInfo[CKErrorRetryAfterKey] = NSNumber(value: retry) }
        if let record = try readOptionalRecord(materializingIn: context) {
            userInfo[CKRecordChangedErrorServerRecordKey] = record
        }
        if let record = try readOptionalRecord(materializingIn: context) {
            userInfo[CKRecordChangedErrorClientRecordKey] = record
        }
        if let record = try readOptionalRecord(materializingIn: context) {
            userInfo[CKRecordChangedErrorAncestorRecordKey] = record
        }
        let count = try readCount()
        if count > 0 {
            var partial: [AnyHashable: CKError] = [:]
            for _ in 0..<count {
                let key: AnyHashable
                switch try readByte() {
                case 1: key = AnyHashable(try readRecordID())
                case 2: key = AnyHashable(try readZoneID())
                case 3: key = AnyHashable(try readString())
                default: throw EngineError.corruptValue
                }
                partial[key] = try readError(materializingIn: context)
            }
            userInfo[CKPartialErrorsByItemIDKey] = partial
        }
        return CKError.make(code, message, userInfo: userInfo)
    }

    mutating func readOptionalError(materializingIn context: DatabaseContext?) throws -> CKError? {
        try readBool() ? try readError(materializingIn: context) : nil
    }

    mutating func readToken() throws -> CKServerChangeToken {
        CKServerChangeToken(data: Data(try readBytes()))
    }

    mutating func readOptionalToken() throws -> CKServerChangeToken? {
        try readBool() ? try readToken() : nil
    }

    mutating func readZone() throws -> CKRecordZone {
        let id = try readZoneID()
        let capabilities = CKRecordZone.Capabilities(rawValue: UInt(try readUInt64()))
        let zone = CKRecordZone(zoneID: id, capabilities: capabilities)
        zone.encryptionScope = CKRecordZone.EncryptionScope(rawValue: Int(try readInt64())) ?? .perRecord
        return zone
    }

    mutating func readSubscription() throws -> CKSubscription {
        CKSubscription.make(from: try SubscriptionRow(decoding: try readBytes()))
    }

    mutating func readQuery() throws -> CKQuery {
        let recordType = try readString()
        let query = CKQuery(
            recordType: recordType, predicate: NSPredicate(format: try readString(), argumentArray: nil))
        var descriptors: [NSSortDescriptor] = []
        for _ in 0..<(try readCount()) {
            let key = try readString()
            let ascending = try readBool()
            if try readBool() {
                let location = CLLocation(latitude: try readDouble(), longitude: try readDouble())
                descriptors.append(CKLocationSortDescriptor(key: key, relativeLocation: location))
            } else {
                descriptors.append(NSSortDescriptor(key: key, ascending: ascending))
            }
        }
        if !descriptors.isEmpty { query.sortDescriptors = descriptors }
        return query
    }

    mutating func readOptionalQuery() throws -> CKQuery? {
        try readBool() ? try readQuery() : nil
    }

    mutating func readCursor() throws -> CKQueryCursor {
        let data = Data(try readBytes())
        let query = try readQuery()
        return CKQueryCursor(data: data, query: query, zoneID: try readBool() ? try readZoneID() : nil)
    }

    mutating func readOptionalCursor() throws -> CKQueryCursor? {
        try readBool() ? try readCursor() : nil
    }
}

extension FieldValue {
    /// This value with the journaled local files put back on its assets, in order; with
    /// `context`, a fetched asset whose file is missing is copied again from the store.
    func attachingFiles(_ files: inout ArraySlice<URL?>, context: DatabaseContext?) throws -> FieldValue {
        switch self {
        case .asset(var asset):
            guard let file = files.popFirst() else { throw EngineError.corruptValue }
            asset.pendingFile = file
            if let context, context.materializesAssets, !asset.contentID.isEmpty,
                file.map({ !FileManager.default.fileExists(atPath: $0.path) }) ?? true
            {
                let stored = asset
                asset =
                    (try? context.engine.read { txn in context.engine.materialize(stored, keys: context.keys, txn) })
                    ?? asset
            }
            return .asset(asset)
        case .list(let items):
            return .list(try items.map { try $0.attachingFiles(&files, context: context) })
        default:
            return self
        }
    }
}
