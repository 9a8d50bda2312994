import Foundation

/// A type whose instances can be predicate arguments (`%@`, `%d`, `%f`, elements of
/// `argumentArray:`) and be compared with record fields.
///
/// StratusPredicate conforms the Foundation and standard-library value types; the Stratus
/// module conforms `CKRecord.Reference`, `CKRecord.ID`, `CKRecord` and `CLLocation`. An
/// argument whose type does not conform (and is not an array, set, `NSNull` or `nil`) makes the
/// predicate fail to parse with a ``QueryPredicateError`` naming the type.
public protocol PredicateValueConvertible {
    /// The value a predicate compares.
    var predicateValue: PredicateValue { get }
}

extension PredicateValue: PredicateValueConvertible {
    /// The value itself.
    public var predicateValue: PredicateValue { self }
}

extension PredicateLocation: PredicateValueConvertible {}

extension String: PredicateValueConvertible {
    /// ``PredicateValue/string(_:)``.
    public var predicateValue: PredicateValue { .string(self) }
}

extension Substring: PredicateValueConvertible {
    /// ``PredicateValue/string(_:)``.
    public var predicateValue: PredicateValue { .string(String(self)) }
}

extension NSString: PredicateValueConvertible {
    /// ``PredicateValue/string(_:)``.
    public var predicateValue: PredicateValue { .string(String(self)) }
}

extension Bool: PredicateValueConvertible {
    /// ``PredicateValue/bool(_:)``.
    public var predicateValue: PredicateValue { .bool(self) }
}

extension Int: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int8: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int16: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int32: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int64: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(self) }
}

extension UInt: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``; values above `Int64.max` become ``PredicateValue/double(_:)``.
    public var predicateValue: PredicateValue { UInt64(self).predicateValue }
}

extension UInt8: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension UInt16: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension UInt32: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension UInt64: PredicateValueConvertible {
    /// ``PredicateValue/int(_:)``; values above `Int64.max` (which CloudKit cannot store)
    /// become ``PredicateValue/double(_:)``.
    public var predicateValue: PredicateValue {
        if let exact = Int64(exactly: self) { return .int(exact) }
        return .double(Double(self))
    }
}

extension Double: PredicateValueConvertible {
    /// ``PredicateValue/double(_:)``.
    public var predicateValue: PredicateValue { .double(self) }
}

extension Float: PredicateValueConvertible {
    /// ``PredicateValue/double(_:)``.
    public var predicateValue: PredicateValue { .double(Double(self)) }
}

extension CGFloat: PredicateValueConvertible {
    /// ``PredicateValue/double(_:)``.
    public var predicateValue: PredicateValue { .double(Double(self)) }
}

extension NSNumber: PredicateValueConvertible {
    /// ``PredicateValue/bool(_:)`` for Boolean numbers (`NSNumber(value: true)`, which on
    /// Linux are the two `__NSCFBoolean` singletons), ``PredicateValue/double(_:)`` for
    /// floating-point numbers and ``PredicateValue/int(_:)`` for the rest.
    public var predicateValue: PredicateValue {
        if self === NSNumber(value: true) { return .bool(true) }
        if self === NSNumber(value: false) { return .bool(false) }
        switch String(cString: objCType) {
        case "B":
            return .bool(boolValue)
        case "d", "f":
            return .double(doubleValue)
        case "Q", "L", "I", "S", "C":
            return uint64Value.predicateValue
        default:
            return .int(int64Value)
        }
    }
}

extension Date: PredicateValueConvertible {
    /// ``PredicateValue/date(_:)``.
    public var predicateValue: PredicateValue { .date(self) }
}

extension NSDate: PredicateValueConvertible {
    /// ``PredicateValue/date(_:)``.
    public var predicateValue: PredicateValue {
        .date(Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate))
    }
}

extension Data: PredicateValueConvertible {
    /// ``PredicateValue/bytes(_:)``.
    public var predicateValue: PredicateValue { .bytes(self) }
}

extension NSData: PredicateValueConvertible {
    /// ``PredicateValue/bytes(_:)``.
    public var predicateValue: PredicateValue { .bytes(Data(referencing: self)) }
}

extension NSNull: PredicateValueConvertible {
    /// ``PredicateValue/null``.
    public var predicateValue: PredicateValue { .null }
}

extension Array: PredicateValueConvertible where Element: PredicateValueConvertible {
    /// ``PredicateValue/list(_:)`` of the elements' values, in order.
    public var predicateValue: PredicateValue { .list(map(\.predicateValue)) }
}

extension Set: PredicateValueConvertible where Element: PredicateValueConvertible {
    /// ``PredicateValue/list(_:)`` of the elements' values, in ascending sort order (see
    /// ``PredicateValue/sortOrder(_:_:)``) so that equal sets give equal values.
    public var predicateValue: PredicateValue {
        .list(map(\.predicateValue).sorted { PredicateValue.sortOrder($0, $1) == .orderedAscending })
    }
}

extension Optional: PredicateValueConvertible where Wrapped: PredicateValueConvertible {
    /// The wrapped value's, or ``PredicateValue/null`` for `nil`.
    public var predicateValue: PredicateValue {
        switch self {
        case .some(let wrapped): return wrapped.predicateValue
        case .none: return .null
        }
    }
}
