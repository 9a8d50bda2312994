import Foundation

/// A field's value as a change-log entry stores it, read in place: a string as its UTF-8 bytes,
/// an integer and a date as their numbers, any other kind decoded (``FieldValue``).
package enum RawFieldValue {
    case string(UnsafeBufferPointer<UInt8>)
    case integer(Int64, NumberKind)
    /// Seconds since the reference date, as `Date(timeIntervalSinceReferenceDate:)` takes them.
    case date(Double)
    case other(FieldValue)
}

/// The parts of a live record's change-log entry, read in place (``RawChangedRecord/withParts(_:)``):
/// the strings as their UTF-8 bytes, valid only inside that call. For a writer that copies them
/// out without making a `String` or a ``FieldValue`` of each (a JSON change answer).
package struct RawRecordParts {
    package let recordName: UnsafeBufferPointer<UInt8>
    package let recordType: UnsafeBufferPointer<UInt8>
    package let recordChangeTag: UnsafeBufferPointer<UInt8>
    package let creationDate: Date
    package let modificationDate: Date
    package let creatorUserRecordName: UnsafeBufferPointer<UInt8>
    package let lastModifiedUserRecordName: UnsafeBufferPointer<UInt8>
    /// The parent reference, as ``CKRecord/parent`` gives it.
    package let parent: CKRecord.Reference?
    /// The reader at the field count.
    private let fieldsReader: LentByteReader

    /// Reads the parts of the entry in `r` (its name, a "no deletion" byte, its stored record).
    fileprivate init(reading r: inout LentByteReader) throws {
        recordName = try r.counted()
        guard try r.readByte() == 0, try r.readByte() == 1 else { throw EngineError.corruptValue }
        recordType = try r.counted()
        _ = try r.readInt64()  // the record's position
        recordChangeTag = try r.counted()
        creationDate = Date(timeIntervalSinceReferenceDate: try r.readDouble())
        modificationDate = Date(timeIntervalSinceReferenceDate: try r.readDouble())
        creatorUserRecordName = try r.counted()
        lastModifiedUserRecordName = try r.counted()
        if try r.readByte() == 1 {
            guard case .reference(let reference) = try FieldValueCodec.read(from: &r) else {
                throw EngineError.corruptValue
            }
            parent = FieldValue.reference(reference).recordValue as? CKRecord.Reference
        } else {
            parent = nil
        }
        fieldsReader = r
    }

    /// Calls `body` with each field's name (UTF-8 bytes) and value, in stored order (sorted by
    /// name).
    package func forEachField(_ body: (UnsafeBufferPointer<UInt8>, RawFieldValue) throws -> Void) throws {
        var r = fieldsReader
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        for _ in 0..<count {
            let name = try r.counted()
            try body(name, try Self.value(&r))
        }
        guard r.isAtEnd else { throw EngineError.corruptValue }
    }

    /// The next value of `r`: strings, integers and dates in place, the other kinds decoded.
    private static func value(_ r: inout LentByteReader) throws -> RawFieldValue {
        let start = r
        switch try r.readByte() {
        case 1:
            return .string(try r.counted())
        case 2:
            guard let kind = NumberKind(rawValue: try r.readByte()) else { throw EngineError.corruptValue }
            return .integer(try r.readInt64(), kind)
        case 4:
            return .date(try r.readDouble())
        default:
            r = start
            return .other(try FieldValueCodec.read(from: &r))
        }
    }
}

extension RawChangedRecord {
    /// `body`'s result with the parts of this record's entry, read in place; they must not
    /// escape the call.
    package func withParts<Result>(_ body: (RawRecordParts) throws -> Result) throws -> Result {
        try entry.withUnsafeBytes { bytes in
            var reader = LentByteReader(bytes)
            return try body(try RawRecordParts(reading: &reader))
        }
    }

    /// The record decoded as ``DatabaseContext/fetchStoredZoneChanges(_:since:limit:desiredKeys:)``
    /// gives it for every field of a record without assets: for a writer that meets what it does
    /// not write in place.
    package func decoded() throws -> StoredChangedRecord {
        let entry = try ChangeEntry(decoding: self.entry)
        guard let record = entry.record else { throw EngineError.corruptValue }
        return StoredChangedRecord(recordName: entry.recordName, stored: record, fields: record.fields)
    }
}

extension RawZoneChange {
    /// Whether this is a live record with an asset in a field (a deletion holds none).
    package var containsAsset: Bool {
        if case .changed(let record) = self { return record.containsAsset }
        return false
    }
}
