import Foundation
package import Stratus

/// Record values out, as field dictionaries `{value, type}`.
extension WSRecordTranslator {
    /// The field dictionary `{value, type}` of a record value; `nil` for an asset (or a list
    /// of them) when the translator has no ``assets`` to write its download URL (a dictionary
    /// without `downloadURL` would promise content a client cannot fetch).
    ///
    /// Integers and booleans are INT64, doubles DOUBLE, dates TIMESTAMP (ms, rounded), data
    /// BYTES (padded base64), lists the `_LIST` tag of their items (integers and doubles mixed:
    /// DOUBLE_LIST), and an empty list `LIST` — a record keeps no item type for it.
    package func fieldDictionary(for value: any CKRecordValue, numbersAsStrings: Bool) -> JSONValue? {
        if let items = listItems(value) {
            return listDictionary(items, numbersAsStrings: numbersAsStrings)
        }
        guard let scalar = outputValue(value) else { return nil }
        var members: [String: JSONValue] = [
            "value": scalar.json(numbersAsStrings: numbersAsStrings), "type": .string(scalar.type.rawValue),
        ]
        if let numberType = WSNumberType(of: value) { members[WSNumberType.member] = .string(numberType.rawValue) }
        return .object(members)
    }

    /// Writes the member `name` with the field dictionary of `value` — the bytes of
    /// ``fieldDictionary(for:numbersAsStrings:)`` — or nothing where that is `nil`.
    func writeField(_ name: String, _ value: any CKRecordValue, numbersAsStrings: Bool, into out: inout JSONWriter) {
        if let items = listItems(value) {
            guard let list = listDictionary(items, numbersAsStrings: numbersAsStrings) else { return }
            out.field(name) { $0.value(list) }
            return
        }
        guard let scalar = outputValue(value) else { return }
        let numberType = WSNumberType(of: value)
        out.field(name) { field in
            field.object { members in
                // Members in key order, as the writer requires.
                if let numberType { members.member("stratusNumberType") { $0.string(numberType.rawValue) } }
                members.member("type") { $0.string(scalar.type.rawValue) }
                members.member("value") { $0.value(scalar.json(numbersAsStrings: numbersAsStrings)) }
            }
        }
    }

    private func listItems(_ value: Any) -> [Any]? {
        if value is String || value is Data { return nil }
        if let items = value as? [Any] { return items }
        if let array = value as? NSArray { return array.map { $0 } }
        return nil
    }

    private func listDictionary(_ items: [Any], numbersAsStrings: Bool) -> JSONValue? {
        var values: [WSOutputValue] = []
        values.reserveCapacity(items.count)
        for item in items {
            guard let value = outputValue(item) else { return nil }
            values.append(value)
        }
        guard let first = values.first else { return ["value": [], "type": .string(WSFieldType.list.rawValue)] }
        var itemType = first.type
        if values.contains(where: { $0.type != itemType }) {
            // The engine stores lists of one type only; integers and doubles share its NUMBER.
            guard values.allSatisfy({ $0.type == .int64 || $0.type == .double }) else { return nil }
            itemType = .double
            values = values.map(\.asDouble)
        }
        guard let listType = itemType.listType else { return nil }
        var members: [String: JSONValue] = [
            "value": .array(values.map { $0.json(numbersAsStrings: numbersAsStrings) }),
            "type": .string(listType.rawValue),
        ]
        if let numberType = WSNumberType(of: items) { members[WSNumberType.member] = .string(numberType.rawValue) }
        return .object(members)
    }

    /// A scalar record value; `nil` for a value the engine does not store, or an asset
    /// without ``assets``.
    private func outputValue(_ value: Any) -> WSOutputValue? {
        if let asset = value as? CKAsset {
            return assets?.dictionary(for: asset).map { .other(.asset, $0) }
        }
        // An NSNumber also casts to Bool and the integer types on Linux: decide by its own type.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            let objCType = String(cString: number.objCType)
            return objCType == "d" || objCType == "f" ? .double(number.doubleValue) : .integer(number.int64Value)
        }
        switch value {
        case let v as String: return .other(.string, .string(v))
        case let v as Bool: return .integer(v ? 1 : 0)
        case let v as Int: return .integer(Int64(v))
        case let v as Int64: return .integer(v)
        case let v as Int32: return .integer(Int64(v))
        case let v as Int16: return .integer(Int64(v))
        case let v as Int8: return .integer(Int64(v))
        case let v as UInt: return .integer(Int64(clamping: v))
        case let v as UInt64: return .integer(Int64(clamping: v))
        case let v as UInt32: return .integer(Int64(v))
        case let v as UInt16: return .integer(Int64(v))
        case let v as UInt8: return .integer(Int64(v))
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Date: return .other(.timestamp, .integer(WSRecordTranslator.milliseconds(v)))
        case let v as Data: return .other(.bytes, .string(v.base64EncodedString()))
        case let v as CKRecord.Reference: return .other(.reference, dictionary(for: v))
        case let v as CLLocation: return .other(.location, dictionary(for: v))
        case let v as NSString: return .other(.string, .string(v as String))
        case let v as NSDate: return .other(.timestamp, .integer(WSRecordTranslator.milliseconds(v as Date)))
        case let v as NSData: return .other(.bytes, .string((v as Data).base64EncodedString()))
        default: return nil
        }
    }

    /// A date as whole milliseconds since 1970, rounded (saturating far outside any real date).
    package static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: ms) ?? (ms < 0 ? .min : .max)
    }

    /// The reference dictionary `{recordName, zoneID, action}` of `reference`.
    package func dictionary(for reference: CKRecord.Reference) -> JSONValue {
        [
            "recordName": .string(reference.recordID.recordName),
            "zoneID": dictionary(for: reference.recordID.zoneID),
            "action": reference.action == .deleteSelf ? "DELETE_SELF" : "NONE",
        ]
    }

    /// The location dictionary of `location` (non-finite numbers as strings, like DOUBLE's).
    package func dictionary(for location: CLLocation) -> JSONValue {
        func number(_ d: Double) -> JSONValue { WSOutputValue.json(d, numbersAsStrings: false) }
        return [
            "latitude": number(location.coordinate.latitude), "longitude": number(location.coordinate.longitude),
            "horizontalAccuracy": number(location.horizontalAccuracy),
            "verticalAccuracy": number(location.verticalAccuracy), "altitude": number(location.altitude),
            "speed": number(location.speed), "course": number(location.course),
            "timestamp": .integer(WSRecordTranslator.milliseconds(location.timestamp)),
        ]
    }
}
