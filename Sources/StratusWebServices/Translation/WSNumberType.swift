import Foundation
package import Stratus

/// The Swift type a number field was saved with, when it is not the one its Web Services type
/// reads as (`Int` for INT64, `Double` for DOUBLE): the Stratus extension member
/// `stratusNumberType` of a field dictionary (decision 0016, "Conformance through remote
/// containers"). With it a remote container reads back the `Int64`, `Bool` or `Float` an
/// embedded one returns; other clients ignore it, and without it INT64 is `Int` and DOUBLE
/// `Double`. A list carries its items' type.
package enum WSNumberType: String, CaseIterable, Sendable {
    case int8 = "Int8"
    case int16 = "Int16"
    case int32 = "Int32"
    case int64 = "Int64"
    case uint = "UInt"
    case uint8 = "UInt8"
    case uint16 = "UInt16"
    case uint32 = "UInt32"
    case uint64 = "UInt64"
    case bool = "Bool"
    case float = "Float"

    /// The member's name.
    package static let member = "stratusNumberType"

    /// The type of a record value, or of the items of a list of one type; `nil` for `Int`,
    /// `Double`, an `NSNumber` (which reads back as those) and anything else.
    package init?(of value: Any) {
        if let items = value as? [Any] {
            guard let first = items.first, items.allSatisfy({ type(of: $0) == type(of: first) }) else { return nil }
            self.init(of: first)
            return
        }
        if type(of: value) is NSNumber.Type { return nil }
        switch value {
        case is Int8: self = .int8
        case is Int16: self = .int16
        case is Int32: self = .int32
        case is Int64: self = .int64
        case is UInt: self = .uint
        case is UInt8: self = .uint8
        case is UInt16: self = .uint16
        case is UInt32: self = .uint32
        case is UInt64: self = .uint64
        case is Bool: self = .bool
        case is Float: self = .float
        default: return nil
        }
    }

    /// The type of a stored number of `kind`; `nil` for the kinds that read back as `Int`
    /// or `Double`.
    package init?(kind: NumberKind) {
        switch kind {
        case .int, .double, .nsnumber: return nil
        case .int8: self = .int8
        case .int16: self = .int16
        case .int32: self = .int32
        case .int64: self = .int64
        case .uint: self = .uint
        case .uint8: self = .uint8
        case .uint16: self = .uint16
        case .uint32: self = .uint32
        case .uint64: self = .uint64
        case .bool: self = .bool
        case .float: self = .float
        }
    }

    /// `value` — an `Int` or `Double`, or a list of them, as a field reads — as this type,
    /// converted as the engine converts a stored number to its kind (integers truncated to
    /// their width, booleans true unless 0); `nil` when `value` is not a number of the kind
    /// this type belongs to (a `Float` type on an INT64, say).
    package func converted(_ value: any CKRecordValue) -> (any CKRecordValue)? {
        if let integer = value as? Int { return convert(integer) }
        if let integers = value as? [Int] { return list(integers.map(convert)) }
        if self == .float, let double = value as? Double { return Float(double) }
        if self == .float, let doubles = value as? [Double] { return doubles.map { Float($0) } }
        return nil
    }

    private func convert(_ integer: Int) -> (any CKRecordValue)? {
        switch self {
        case .int8: return Int8(truncatingIfNeeded: integer)
        case .int16: return Int16(truncatingIfNeeded: integer)
        case .int32: return Int32(truncatingIfNeeded: integer)
        case .int64: return Int64(integer)
        case .uint: return UInt(truncatingIfNeeded: integer)
        case .uint8: return UInt8(truncatingIfNeeded: integer)
        case .uint16: return UInt16(truncatingIfNeeded: integer)
        case .uint32: return UInt32(truncatingIfNeeded: integer)
        case .uint64: return UInt64(truncatingIfNeeded: integer)
        case .bool: return integer != 0
        case .float: return nil
        }
    }

    /// Converted items as a typed list (a record value must be a concrete array type).
    private func list(_ items: [(any CKRecordValue)?]) -> (any CKRecordValue)? {
        let values = items.compactMap { $0 }
        guard values.count == items.count else { return nil }
        switch self {
        case .int8: return values.compactMap { $0 as? Int8 }
        case .int16: return values.compactMap { $0 as? Int16 }
        case .int32: return values.compactMap { $0 as? Int32 }
        case .int64: return values.compactMap { $0 as? Int64 }
        case .uint: return values.compactMap { $0 as? UInt }
        case .uint8: return values.compactMap { $0 as? UInt8 }
        case .uint16: return values.compactMap { $0 as? UInt16 }
        case .uint32: return values.compactMap { $0 as? UInt32 }
        case .uint64: return values.compactMap { $0 as? UInt64 }
        case .bool: return values.compactMap { $0 as? Bool }
        case .float: return nil
        }
    }
}
