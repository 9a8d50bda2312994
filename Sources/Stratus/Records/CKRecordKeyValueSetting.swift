public import Foundation

/// Key-value access to a record's fields: what `CKRecord` and its `encryptedValues` offer.
///
/// Code can work with either through this protocol, as with Apple's. On Linux
/// `NSObjectProtocol` does not make a protocol class-bound, so this one also requires
/// `AnyObject`: setting a field through `record.encryptedValues[key]` then changes the record.
public protocol CKRecordKeyValueSetting: NSObjectProtocol, AnyObject {
    /// The value of field `key`, or `nil`. Setting `nil` removes the field.
    subscript(key: CKRecord.FieldKey) -> (any CKRecordValue)? { get set }
    /// The value of field `key` as `T`, or `nil` if absent or of another type.
    subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? { get set }
    /// The value of field `key`, or `nil`.
    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValue)?
    /// Sets field `key` to `object`, or removes it for `nil`.
    func setObject(_ object: (any CKRecordValue)?, forKey key: CKRecord.FieldKey)
    /// The names of the fields that have values.
    func allKeys() -> [CKRecord.FieldKey]
    /// The names of the fields changed since the record was fetched or saved.
    func changedKeys() -> [CKRecord.FieldKey]
}

extension CKRecord: CKRecordKeyValueSetting {}
