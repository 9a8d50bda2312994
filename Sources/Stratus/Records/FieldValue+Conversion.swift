import Foundation

extension FieldValue {
    /// Converts a value set on a `CKRecord` into a stored value, or `nil` if CloudKit cannot
    /// store that type.
    init?(recordValue value: Any) {
        if let fast = FieldValue(exactType: value) {
            self = fast
            return
        }
        // An NSNumber is converted as such: on Linux it also casts to `Bool` (when 0 or 1),
        // `Int` and the other number types, and the first match would decide its type.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number: number)
            return
        }
        switch value {
        case let v as String: self = .string(v)
        case let v as Bool: self = .integer(v ? 1 : 0, .bool)
        case let v as Int: self = .integer(Int64(v), .int)
        case let v as Int64: self = .integer(v, .int64)
        case let v as Int32: self = .integer(Int64(v), .int32)
        case let v as Int16: self = .integer(Int64(v), .int16)
        case let v as Int8: self = .integer(Int64(v), .int8)
        case let v as UInt:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i, .uint)
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i, .uint64)
        case let v as UInt32: self = .integer(Int64(v), .uint32)
        case let v as UInt16: self = .integer(Int64(v), .uint16)
        case let v as UInt8: self = .integer(Int64(v), .uint8)
        case let v as Double: self = .double(v, .double)
        case let v as Float: self = .double(Double(v), .float)
        case let v as Date: self = .date(v)
        case let v as Data: self = .bytes(v)
        case let v as CKRecord.Reference:
            self = .reference(
                ReferenceValue(
                    recordName: v.recordID.recordName, zoneName: v.recordID.zoneID.zoneName,
                    ownerName: v.recordID.zoneID.ownerName, action: UInt8(v.action.rawValue)))
        case let v as CLLocation:
            self = .location(
                LocationValue(
                    latitude: v.coordinate.latitude, longitude: v.coordinate.longitude,
                    altitude: v.altitude, horizontalAccuracy: v.horizontalAccuracy,
                    verticalAccuracy: v.verticalAccuracy, course: v.course, speed: v.speed,
                    timestamp: v.timestamp.timeIntervalSinceReferenceDate))
        case let v as CKAsset:
            if let stored = v.storedContent {
                // Keep the local copy: saved on another record or in another database, the
                // content is copied (from this file when the store does not have it). A fetched
                // asset whose content was not available locally has no file, and keeps its
                // stored content as it is.
                var value = stored
                value.pendingFile = v.fileURL
                self = .asset(value)
            } else {
                guard let url = v.fileURL else { return nil }
                self = .asset(AssetValue(contentID: "", size: -1, pendingFile: url))
            }
        case let v as NSNumber:
            self.init(number: v)
        case let v as NSString: self = .string(v as String)
        case let v as NSDate: self = .date(v as Date)
        case let v as NSData: self = .bytes(v as Data)
        case let v as [Any]:
            var items: [FieldValue] = []
            items.reserveCapacity(v.count)
            for element in v {
                guard let item = FieldValue(recordValue: element) else { return nil }
                if case .list = item { return nil }
                items.append(item)
            }
            if let first = items.first?.schemaType, items.contains(where: { $0.schemaType != first }) {
                return nil
            }
            self = .list(items)
        case let v as NSArray:
            self.init(recordValue: v.map { $0 } as [Any])
        default:
            return nil
        }
    }

    /// Converts a value set on a `CKRecord` into a stored value, or `nil` if CloudKit cannot
    /// store that type: ``init(recordValue:)`` with the common value types taken from the
    /// value's own type, unboxed, instead of re-boxed as `Any` and cast out of the box (a
    /// runtime cast of an `Any` costs several times a cast between known types).
    init?(recordValue value: any CKRecordValue) {
        if let fast = FieldValue(exactlyTyped: value) {
            self = fast
            return
        }
        self.init(recordValue: value as Any)
    }

    /// ``init(exactType:)`` for a value whose type is known here (an opened `any
    /// CKRecordValue`): the same metatype dispatch, each cast from `Value` to that same type.
    private init?<Value: CKRecordValue>(exactlyTyped value: Value) {
        switch ObjectIdentifier(Value.self) {
        case ObjectIdentifier(String.self): self = .string(value as! String)
        case ObjectIdentifier(Int.self): self = .integer(Int64(value as! Int), .int)
        case ObjectIdentifier(Int64.self): self = .integer(value as! Int64, .int64)
        case ObjectIdentifier(Double.self): self = .double(value as! Double, .double)
        case ObjectIdentifier(Bool.self): self = .integer((value as! Bool) ? 1 : 0, .bool)
        case ObjectIdentifier(Date.self): self = .date(value as! Date)
        case ObjectIdentifier(Data.self): self = .bytes(value as! Data)
        default: return nil
        }
    }

    /// The common value types, dispatched on the value's exact dynamic type: one metatype
    /// comparison and one cast that cannot fail, instead of a chain of failing dynamic casts.
    /// Anything else (NSNumber and other classes, arrays, references, …) is `nil` here and
    /// goes through the general conversion, whose result for these types is the same.
    private init?(exactType value: Any) {
        switch ObjectIdentifier(type(of: value)) {
        case ObjectIdentifier(String.self): self = .string(value as! String)
        case ObjectIdentifier(Int.self): self = .integer(Int64(value as! Int), .int)
        case ObjectIdentifier(Int64.self): self = .integer(value as! Int64, .int64)
        case ObjectIdentifier(Double.self): self = .double(value as! Double, .double)
        case ObjectIdentifier(Bool.self): self = .integer((value as! Bool) ? 1 : 0, .bool)
        case ObjectIdentifier(Date.self): self = .date(value as! Date)
        case ObjectIdentifier(Data.self): self = .bytes(value as! Data)
        default: return nil
        }
    }

    /// A number set as an `NSNumber`; `nil` for an unsigned value above `Int64.max`, which
    /// CloudKit's 64-bit signed numbers cannot hold.
    private init?(number: NSNumber) {
        let type = String(cString: number.objCType)
        switch type {
        case "f", "d":
            self = .double(number.doubleValue, .nsnumber)
        case "c" where number === (true as NSNumber) || number === (false as NSNumber):
            self = .integer(number.boolValue ? 1 : 0, .bool)
        case "C", "S", "I", "L", "Q":
            guard let value = Int64(exactly: number.uint64Value) else { return nil }
            self = .integer(value, .nsnumber)
        default:
            self = .integer(number.int64Value, .nsnumber)
        }
    }

    /// The value as the Swift type it was stored as.
    package var recordValue: any CKRecordValue {
        switch self {
        case .string(let s): return s
        case .integer(let v, let kind):
            switch kind {
            case .int: return Int(v)
            case .int8: return Int8(truncatingIfNeeded: v)
            case .int16: return Int16(truncatingIfNeeded: v)
            case .int32: return Int32(truncatingIfNeeded: v)
            case .int64: return v
            case .uint: return UInt(truncatingIfNeeded: v)
            case .uint8: return UInt8(truncatingIfNeeded: v)
            case .uint16: return UInt16(truncatingIfNeeded: v)
            case .uint32: return UInt32(truncatingIfNeeded: v)
            case .uint64: return UInt64(truncatingIfNeeded: v)
            case .bool: return v != 0
            case .double, .float: return Double(v)
            case .nsnumber: return NSNumber(value: v)
            }
        case .double(let v, let kind):
            switch kind {
            case .float: return Float(v)
            case .nsnumber: return NSNumber(value: v)
            default: return v
            }
        case .date(let d): return d
        case .bytes(let d): return d
        case .reference(let r):
            return CKRecord.Reference(
                recordID: CKRecord.ID(
                    recordName: r.recordName,
                    zoneID: CKRecordZone.ID(zoneName: r.zoneName, ownerName: r.ownerName)),
                action: CKRecord.ReferenceAction(rawValue: UInt(r.action)) ?? .none)
        case .location(let l):
            return CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: l.latitude, longitude: l.longitude),
                altitude: l.altitude, horizontalAccuracy: l.horizontalAccuracy,
                verticalAccuracy: l.verticalAccuracy, course: l.course, speed: l.speed,
                timestamp: Date(timeIntervalSinceReferenceDate: l.timestamp))
        case .asset(let a):
            return CKAsset(stored: a)
        case .list(let items):
            return ListValue.make(items)
        case .invalid(let description):
            return "<invalid: \(description)>"
        }
    }

    /// Why `value`, which `init(recordValue:)` refused, cannot be stored: a noun phrase for
    /// error messages ("a list mixing String and Int64 values").
    static func unstorableDescription(of value: Any) -> String {
        switch value {
        case let v as UInt64 where Int64(exactly: v) == nil:
            return "the UInt64 value \(v), larger than CloudKit's largest integer (Int64.max)"
        case let v as UInt where Int64(exactly: v) == nil:
            return "the UInt value \(v), larger than CloudKit's largest integer (Int64.max)"
        case let v as NSNumber
        where type(of: value) is NSNumber.Type && String(cString: v.objCType) == "Q"
            && Int64(exactly: v.uint64Value) == nil:
            return "the NSNumber value \(v.uint64Value), larger than CloudKit's largest integer (Int64.max)"
        case let v as CKAsset where v.fileURL == nil && v.storedContent == nil:
            return "a CKAsset without a fileURL"
        case let v as NSArray where !(value is [Any]):
            return unstorableDescription(of: v.map { $0 } as [Any])
        case let v as [Any]:
            for (index, element) in v.enumerated() {
                guard let item = FieldValue(recordValue: element) else {
                    return "a list whose item \(index) is \(unstorableDescription(of: element))"
                }
                if case .list = item { return "a list inside a list (item \(index))" }
            }
            let types = v.map { String(describing: Swift.type(of: $0)) }
            var distinct: [String] = []
            for type in types where !distinct.contains(type) { distinct.append(type) }
            return "a list mixing \(distinct.joined(separator: " and ")) values (a list's items must share one type)"
        default:
            return "a value of type \(String(describing: Swift.type(of: value)))"
        }
    }

    /// The value as `T`, converting numbers between numeric types as `NSNumber` does.
    func converted<T>(to type: T.Type) -> T? {
        if let value = recordValue as? T { return value }
        switch self {
        case .integer(let v, _):
            switch type {
            case is Int.Type: return Int(exactly: v) as? T
            case is Int64.Type: return v as? T
            case is Int32.Type: return Int32(exactly: v) as? T
            case is Int16.Type: return Int16(exactly: v) as? T
            case is Int8.Type: return Int8(exactly: v) as? T
            case is UInt.Type: return UInt(exactly: v) as? T
            case is UInt64.Type: return UInt64(exactly: v) as? T
            case is UInt32.Type: return UInt32(exactly: v) as? T
            case is UInt16.Type: return UInt16(exactly: v) as? T
            case is UInt8.Type: return UInt8(exactly: v) as? T
            case is Double.Type: return Double(v) as? T
            case is Float.Type: return Float(v) as? T
            case is Bool.Type: return (v != 0) as? T
            case is NSNumber.Type: return NSNumber(value: v) as? T
            default: return nil
            }
        case .double(let v, _):
            switch type {
            case is Double.Type: return v as? T
            case is Float.Type: return Float(v) as? T
            case is Int.Type: return Int(exactly: v) as? T
            case is Int64.Type: return Int64(exactly: v) as? T
            case is NSNumber.Type: return NSNumber(value: v) as? T
            default: return nil
            }
        case .string(let s):
            return type == NSString.self ? (s as NSString) as? T : nil
        case .date(let d):
            return type == NSDate.self ? (d as NSDate) as? T : nil
        case .bytes(let d):
            return type == NSData.self ? (d as NSData) as? T : nil
        default:
            return nil
        }
    }

    /// The strings a full-text (`self CONTAINS`) search looks at.
    var searchableStrings: [String] {
        switch self {
        case .string(let s): return [s]
        case .list(let items): return items.flatMap(\.searchableStrings)
        default: return []
        }
    }
}

/// Rebuilds typed Swift arrays from stored lists, so `record["tags"] as? [String]` works.
enum ListValue {
    static func make(_ items: [FieldValue]) -> any CKRecordValue {
        let values = items.map(\.recordValue)
        if let v = values as? [String] { return v }
        if let v = values as? [Int] { return v }
        if let v = values as? [Int64] { return v }
        if let v = values as? [Double] { return v }
        if let v = values as? [Bool] { return v }
        if let v = values as? [Date] { return v }
        if let v = values as? [Data] { return v }
        if let v = values as? [CKRecord.Reference] { return v }
        if let v = values as? [CLLocation] { return v }
        if let v = values as? [CKAsset] { return v }
        if let v = values as? [Float] { return v }
        if let v = values as? [NSNumber] { return v }
        return values as NSArray
    }
}
