import Foundation

/// The order-preserving encoding of a field value inside a value-index key (decision 0002).
///
/// Strings sort by the UTF-8 bytes of their canonical composition (NFC): Unicode code-point
/// order after normalisation, case-sensitive — the order of Swift's `<`, which the predicate
/// evaluator uses (decision 0019.2) — and are indexed by their first 200 bytes; numbers and
/// dates sort numerically; references by record name; a missing value (null) sorts first.
enum IndexValue {
    static let maximumStringPrefix = 200

    /// The key bytes of `value`, or `nil` if values of its type cannot be sorted.
    static func encode(_ value: FieldValue?) -> [UInt8]? {
        var key = OrderedKey()
        guard let value else {
            key.appendNull()
            return key.bytes
        }
        switch value {
        case .string(let s):
            return stringElement(s, terminated: true)
        case .integer(let v, _):
            key.append(double: Double(v))
            key.append(v)
        case .double(let v, _):
            key.append(double: v)
        case .date(let d):
            key.append(double: d.timeIntervalSinceReferenceDate)
        case .reference(let r):
            key.append(r.recordName)
        default:
            return nil
        }
        return key.bytes
    }

    /// The element of string `s`: its NFC form's first 200 UTF-8 bytes, escaped; without the
    /// terminator (`terminated: false`) it is the lower bound of every string that starts with
    /// those bytes.
    static func stringElement(_ s: String, terminated: Bool) -> [UInt8] {
        var key = OrderedKey()
        key.append(bytes: Array(s.precomposedStringWithCanonicalMapping.utf8.prefix(maximumStringPrefix)))
        var bytes = [OrderedKey.stringTag] + key.bytes.dropFirst()
        if !terminated { bytes.removeLast() }
        return bytes
    }

    /// The canonical index name of a sort key: system dates have fixed internal names.
    static func canonicalField(_ key: String) -> String {
        switch key {
        case "creationDate", "___createTime": return "___createTime"
        case "modificationDate", "___modTime": return "___modTime"
        default: return key
        }
    }

    /// The value a record is sorted by for the (canonical) field `field`.
    static func sortValue(of record: StoredRecord, field: String) -> FieldValue? {
        switch field {
        case "___createTime": return .date(Date(timeIntervalSinceReferenceDate: record.creationDate))
        case "___modTime": return .date(Date(timeIntervalSinceReferenceDate: record.modificationDate))
        default: return record.fields[field]
        }
    }

    /// Whether fields of `type` can be sorted on.
    static func isSortable(_ type: SchemaType) -> Bool {
        switch type {
        case .string, .number, .timestamp, .reference: return true
        default: return false
        }
    }
}
