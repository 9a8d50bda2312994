import Foundation
import Stratus

/// Records for people (fields in the `name:type=value` syntax the tool reads) and for scripts
/// (the `Codable` JSON of `CKRecord`, as export writes it).
enum RecordText {
    /// The record as text:
    ///
    /// ```
    /// Note note-1  zone Notes  tag 3  modified 2026-01-01T12:00:00Z
    ///   count:int=3
    ///   title=Hello
    /// ```
    static func render(_ record: CKRecord) -> String {
        var header = "\(record.recordType) \(record.recordID.recordName)  zone \(record.recordID.zoneID.zoneName)"
        if let tag = record.recordChangeTag { header += "  tag \(tag)" }
        if let modified = record.modificationDate { header += "  modified \(DateText.format(modified))" }
        var lines = [header]
        if let parent = record.parent { lines.append("  (parent \(parent.recordID.recordName))") }
        for key in record.allKeys() {
            guard let value = record[key] else { continue }
            lines.append("  " + assignment(key, value))
        }
        return lines.joined(separator: "\n")
    }

    /// `name:type=value` for one field; strings are `name=value`.
    static func assignment(_ name: String, _ value: any CKRecordValue) -> String {
        let (type, text) = describe(value)
        return type == "string" ? "\(name)=\(text)" : "\(name):\(type)=\(text)"
    }

    /// The type name and text of `value`, in the tool's field syntax.
    static func describe(_ value: Any) -> (type: String, text: String) {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return ("number", number.stringValue)
        }
        switch value {
        case let v as String: return ("string", v)
        case let v as Bool: return ("bool", v ? "true" : "false")
        case let v as Int: return ("int", String(v))
        case let v as Int8: return ("int8", String(v))
        case let v as Int16: return ("int16", String(v))
        case let v as Int32: return ("int32", String(v))
        case let v as Int64: return ("int64", String(v))
        case let v as UInt: return ("uint", String(v))
        case let v as UInt8: return ("uint8", String(v))
        case let v as UInt16: return ("uint16", String(v))
        case let v as UInt32: return ("uint32", String(v))
        case let v as UInt64: return ("uint64", String(v))
        case let v as Double: return ("double", String(v))
        case let v as Float: return ("float", String(v))
        case let v as Date: return ("date", DateText.format(v))
        case let v as Data: return ("bytes", v.base64EncodedString())
        case let v as CKRecord.Reference:
            return (v.action == .deleteSelf ? "reference-delete-self" : "reference", v.recordID.recordName)
        case let v as CLLocation: return ("location", "\(v.coordinate.latitude),\(v.coordinate.longitude)")
        case let v as CKAsset: return ("asset", v.fileURL?.path ?? "")
        case let v as [Any]:
            let items = v.map(describe)
            let itemType = items.first?.type ?? "string"
            let text = items.map {
                $0.text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,")
            }
            return (itemType + "-list", text.joined(separator: ","))
        case let v as NSArray: return describe(v.map { $0 })
        default: return ("unknown", String(describing: value))
        }
    }

    /// The record as one line of JSON (`CKRecord`'s `Codable` form).
    static func json(_ record: CKRecord) throws -> String {
        try Output.jsonLine(record)
    }
}
