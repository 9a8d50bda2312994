import Foundation
internal import Stratus

/// A record's fields written from the engine's own values, without converting each to its
/// public Swift type and back (a dynamic cast per field): the same bytes as
/// ``WSRecordTranslator/writeField(_:_:numbersAsStrings:into:)`` writes for the public value.
extension WSRecordTranslator {
    /// Writes the members of `record`'s fields: `desiredKeys` (every field when `nil`), by
    /// name, once each, in the serializer's order.
    func writeStoredFields(
        of record: CKRecord, numbersAsStrings: Bool, _ desiredKeys: [String]?, into out: inout JSONWriter
    ) {
        let (names, values) = record.storedFields
        writeStoredFields(names, values, numbersAsStrings: numbersAsStrings, desiredKeys, into: &out)
    }

    /// Writes the members of the fields `names` and `values` (``CKRecord/storedFields``):
    /// `desiredKeys` (every field when `nil`), by name, once each, in the serializer's order.
    func writeStoredFields(
        _ names: [String], _ values: [FieldValue], numbersAsStrings: Bool, _ desiredKeys: [String]?,
        into out: inout JSONWriter
    ) {
        if desiredKeys == nil, zip(names, names.dropFirst()).allSatisfy({ $0 < $1 }) {
            for (name, value) in zip(names, values) {
                writeStoredField(name, value, numbersAsStrings: numbersAsStrings, into: &out)
            }
            return
        }
        let wanted = Self.sortedNames(desiredKeys ?? names)
        // A scan per name for the few fields most records have; a table for many, where a
        // scan per name would grow with the product of the two (a request chooses both).
        let positions: [String: Int]? =
            names.count > 16 && wanted.count > 1
            ? Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : nil
        for name in wanted {
            let found: Int? = if let positions { positions[name] } else { names.firstIndex(of: name) }
            guard let index = found else { continue }
            writeStoredField(name, values[index], numbersAsStrings: numbersAsStrings, into: &out)
        }
    }

    /// Writes the member `name` for `value`: strings, numbers, dates and bytes directly, the
    /// rest (references, locations, assets, lists) through their public values.
    func writeStoredField(
        _ name: String, _ value: FieldValue, numbersAsStrings: Bool, into out: inout JSONWriter
    ) {
        guard let scalar = Self.scalarOutput(value) else {
            writeField(name, value.recordValue, numbersAsStrings: numbersAsStrings, into: &out)
            return
        }
        let numberType = Self.numberType(value)
        out.field(name) { field in
            field.object { members in
                // Members in key order, as the writer requires.
                if let numberType { members.member("stratusNumberType") { $0.string(numberType.rawValue) } }
                members.member("type") { $0.string(scalar.type.rawValue) }
                members.member("value") { writeScalar(scalar, numbersAsStrings: numbersAsStrings, into: &$0) }
            }
        }
    }

    /// The Swift type a stored number reads back as, when it is not `Int` or `Double`.
    static func numberType(_ value: FieldValue) -> WSNumberType? {
        switch value {
        case .integer(_, let kind), .double(_, let kind): return WSNumberType(kind: kind)
        default: return nil
        }
    }

    private func writeScalar(_ scalar: WSOutputValue, numbersAsStrings: Bool, into out: inout JSONWriter) {
        switch scalar {
        case .integer(let integer) where !numbersAsStrings: out.integer(integer)
        case .other(.string, .string(let string)): out.string(string)
        case .other(.timestamp, .integer(let milliseconds)): out.integer(milliseconds)
        default: out.value(scalar.json(numbersAsStrings: numbersAsStrings))
        }
    }

    /// The output of a scalar stored value, as ``outputValue(_:)`` gives for its public value
    /// (``FieldValue/recordValue``); `nil` for the kinds that go the public way.
    static func scalarOutput(_ value: FieldValue) -> WSOutputValue? {
        switch value {
        case .string(let string): return .other(.string, .string(string))
        case .integer(let integer, let kind): return integerOutput(integer, kind)
        case .double(let double, let kind): return .double(kind == .float ? Double(Float(double)) : double)
        case .date(let date): return .other(.timestamp, .integer(milliseconds(date)))
        case .bytes(let data): return .other(.bytes, .string(data.base64EncodedString()))
        case .reference, .location, .asset, .list, .invalid: return nil
        }
    }

    /// An integer as its stored Swift type reads back: truncated to that type, unsigned ones
    /// clamped into INT64, booleans 0 or 1, the floating kinds as DOUBLE.
    private static func integerOutput(_ integer: Int64, _ kind: NumberKind) -> WSOutputValue {
        switch kind {
        case .int, .int64, .nsnumber: return .integer(integer)
        case .int8: return .integer(Int64(Int8(truncatingIfNeeded: integer)))
        case .int16: return .integer(Int64(Int16(truncatingIfNeeded: integer)))
        case .int32: return .integer(Int64(Int32(truncatingIfNeeded: integer)))
        case .uint: return .integer(Int64(clamping: UInt(truncatingIfNeeded: integer)))
        case .uint64: return .integer(Int64(clamping: UInt64(truncatingIfNeeded: integer)))
        case .uint8: return .integer(Int64(UInt8(truncatingIfNeeded: integer)))
        case .uint16: return .integer(Int64(UInt16(truncatingIfNeeded: integer)))
        case .uint32: return .integer(Int64(UInt32(truncatingIfNeeded: integer)))
        case .bool: return .integer(integer != 0 ? 1 : 0)
        case .double, .float: return .double(Double(integer))
        }
    }
}
