public import Foundation
import Synchronization

/// A record: a dictionary of typed fields plus system fields, identified by a `CKRecord.ID`.
///
/// As in CloudKit, a record tracks which keys were changed locally (`changedKeys()`), and the
/// server fills in its system fields (`creationDate`, `modificationDate`, `recordChangeTag`, …)
/// when it is saved.
public final class CKRecord: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// A record type's name.
    public typealias RecordType = String
    /// A field's name.
    public typealias FieldKey = String

    /// The record's ID.
    public let recordID: CKRecord.ID
    /// The record's type.
    public let recordType: CKRecord.RecordType

    struct State {
        var values: FieldTable = [:]
        var changed = ChangedKeys()
        var system = SystemFields()
    }
    let state: Mutex<State>

    /// A new record of `recordType` with `recordID` (a new UUID name in the default zone by
    /// default).
    public init(recordType: CKRecord.RecordType, recordID: CKRecord.ID = CKRecord.ID()) {
        self.recordType = recordType
        self.recordID = recordID
        self.state = Mutex(State())
    }

    /// A new record of `recordType` with a new UUID name in `zoneID`.
    public convenience init(recordType: CKRecord.RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: CKRecord.ID(zoneID: zoneID))
    }

    /// A record holding `state`, which it takes over (a caller's last use of it is a move, not
    /// a copy of every field).
    init(recordType: String, recordID: CKRecord.ID, state: consuming State) {
        self.recordType = recordType
        self.recordID = recordID
        self.state = Mutex(state)
    }

    // MARK: System fields

    /// When the record was first saved to the server; `nil` before.
    public var creationDate: Date? { state.withLock { $0.system.creationDate } }
    /// When the record was last saved to the server; `nil` before.
    public var modificationDate: Date? { state.withLock { $0.system.modificationDate } }
    /// The user who created the record.
    public var creatorUserRecordID: CKRecord.ID? {
        state.withLock { $0.system.creatorUserRecordName }.map { CKRecord.ID(recordName: $0) }
    }
    /// The user who last modified the record.
    public var lastModifiedUserRecordID: CKRecord.ID? {
        state.withLock { $0.system.lastModifiedUserRecordName }.map { CKRecord.ID(recordName: $0) }
    }
    /// The server's version tag of this record; a new value on every save. `nil` before the
    /// first save.
    public var recordChangeTag: String? { state.withLock { $0.system.changeTag } }

    /// The record's parent, for sharing hierarchies. Its target must exist (on the server or in
    /// the same save) and its action must be `.none`.
    public var parent: CKRecord.Reference? {
        get { state.withLock { $0.system.parent }?.recordValue as? CKRecord.Reference }
        set {
            let value = newValue.flatMap { FieldValue(recordValue: $0) }
            state.withLock {
                $0.system.parent = value
                $0.system.parentChanged = true
            }
        }
    }

    /// The share this record belongs to (sharing is not supported by Stratus yet).
    public var share: CKRecord.Reference? { nil }

    /// Sets the parent to the record with `parentID` (action `.none`), or clears it.
    public func setParent(_ parentID: CKRecord.ID?) {
        parent = parentID.map { CKRecord.Reference(recordID: $0, action: .none) }
    }

    /// Sets the parent to `parent` (action `.none`), or clears it.
    public func setParent(_ parent: CKRecord?) {
        setParent(parent?.recordID)
    }

    // MARK: Fields

    /// The value of field `key`, or `nil`. Setting `nil` removes the field.
    public subscript(key: CKRecord.FieldKey) -> (any CKRecordValue)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    /// The value of field `key` as `T`, or `nil` if absent or of another type. Numbers convert
    /// between numeric types as `NSNumber` bridging does in CloudKit.
    public subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? {
        get {
            guard let stored = state.withLock({ $0.values[key] }) else { return nil }
            return stored.converted(to: T.self)
        }
        set { setObject(newValue, forKey: key) }
    }

    /// The value of field `key`, or `nil`.
    public func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValue)? {
        state.withLock { $0.values[key] }?.recordValue
    }

    /// Sets field `key` to `object`, or removes it for `nil`, and marks the key changed.
    ///
    /// A value of a type CloudKit cannot store is kept out of the record and makes the next
    /// save fail with `CKError.invalidArguments` naming the field (CloudKit raises an exception).
    public func setObject(_ object: (any CKRecordValue)?, forKey key: CKRecord.FieldKey) {
        let value: FieldValue?
        if let object {
            value = FieldValue(recordValue: object) ?? .invalid(FieldValue.unstorableDescription(of: object))
        } else {
            value = nil
        }
        state.withLock { s in
            if s.values.isEmpty && value != nil {
                // Records are usually filled field by field: room for a few fields up front
                // instead of a resize at 1, 2, 3 and 6 fields.
                s.values.reserveCapacity(8)
                s.changed.reserveCapacity(8)
            }
            s.values[key] = value
            s.changed.insert(key)
        }
    }

    /// Sets every field of `fields` (removing those whose value is `nil`) and marks each
    /// changed, as ``setObject(_:forKey:)`` one after the other would, in one step whose cost
    /// grows with the fields and not with their square: for translators of requests, whose
    /// records a client fills.
    package func setObjects(_ fields: [(key: CKRecord.FieldKey, value: (any CKRecordValue)?)]) {
        let assignments = fields.map { field -> (key: String, value: FieldValue?) in
            guard let object = field.value else { return (field.key, nil) }
            return (
                field.key, FieldValue(recordValue: object) ?? .invalid(FieldValue.unstorableDescription(of: object))
            )
        }
        state.withLock { s in
            if s.values.isEmpty {
                s.values = FieldTable(assigning: assignments)
            } else {
                for (key, value) in assignments { s.values[key] = value }
            }
            s.changed.reserveCapacity(s.changed.names.count + fields.count)
            for field in fields { s.changed.insert(field.key) }
        }
    }

    /// The value of field `key` (key-value coding style).
    public func value(forKey key: String) -> Any? {
        object(forKey: key)
    }

    /// Sets field `key` (key-value coding style); the value must be a CloudKit value type.
    public func setValue(_ value: Any?, forKey key: String) {
        if let value {
            if let recordValue = value as? any CKRecordValue {
                setObject(recordValue, forKey: key)
            } else {
                let description = FieldValue.unstorableDescription(of: value)
                state.withLock { s in
                    s.values[key] = .invalid(description)
                    s.changed.insert(key)
                }
            }
        } else {
            setObject(nil, forKey: key)
        }
    }

    /// The names of the fields that have values.
    public func allKeys() -> [CKRecord.FieldKey] {
        state.withLock { $0.values.keys }
    }

    /// The names of the fields changed locally since the record was fetched or saved.
    public func changedKeys() -> [CKRecord.FieldKey] {
        state.withLock { $0.changed.names }
    }

    /// Every search token of the record's string fields, normalized (lowercased, without
    /// diacritics), as `self CONTAINS` queries match them.
    public func allTokens() -> [String] {
        let strings = state.withLock { $0.values.values.flatMap(\.searchableStrings) }
        var tokens = Set<String>()
        for s in strings { tokens.formUnion(SearchTokens.tokenize(s)) }
        return tokens.sorted()
    }

    /// The record's encrypted fields, as in CloudKit. Stratus stores them like other fields
    /// (the store is yours: encrypt the disk or the database), so this is the record itself
    /// seen through ``CKRecordKeyValueSetting``.
    public var encryptedValues: any CKRecordKeyValueSetting & Sendable { self }

    // MARK: NSObject

    /// A copy of the object.
    public func copy(with zone: NSZone? = nil) -> Any {
        CKRecord(recordType: recordType, recordID: recordID, state: state.withLock { $0 })
    }

    public override var description: String {
        let tag = recordChangeTag ?? "nil"
        return
            "<CKRecord: recordType=\(recordType), recordID=\(recordID.recordName):(\(recordID.zoneID.zoneName):\(recordID.zoneID.ownerName)), recordChangeTag=\(tag), values=\(allKeys())>"
    }

    // MARK: Internal

    /// Clears the changed-keys list (after a fetch or a successful save).
    func clearChangedKeys() {
        state.withLock {
            $0.changed.removeAll()
            $0.system.parentChanged = false
        }
    }

    var fieldValues: FieldTable { state.withLock { $0.values } }

    /// The fields as the engine holds them: names (ascending when all are ASCII, as the
    /// engine's always are) and values, in one lock. For translators that write every field
    /// (stratusd's answers) without converting each value to its public type.
    package var storedFields: (names: [String], values: [FieldValue]) {
        state.withLock { ($0.values.keys, $0.values.values) }
    }
    var systemFields: SystemFields { state.withLock { $0.system } }
}
