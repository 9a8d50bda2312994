import Foundation

/// Predicate values in bytes: the constants of a stored predicate (``StoredPredicate``, kept in
/// subscriptions) and the sort values of a memory-sorted query's cursor
/// (``MemorySortPosition``).
enum PredicateValueCodec {
    /// `value`: a tag, then the value (a list: its count and elements).
    static func write(_ value: PredicateValue, to w: inout ByteWriter) {
        switch value {
        case .null:
            w.write(UInt8(0))
        case .string(let string):
            w.write(UInt8(1))
            w.write(string)
        case .int(let int):
            w.write(UInt8(2))
            w.write(int)
        case .double(let double):
            w.write(UInt8(3))
            w.write(double)
        case .bool(let bool):
            w.write(UInt8(4))
            w.write(UInt8(bool ? 1 : 0))
        case .date(let date):
            w.write(UInt8(5))
            w.write(date.timeIntervalSinceReferenceDate)
        case .bytes(let data):
            w.write(UInt8(6))
            w.write(bytes: data)
        case .reference(let recordName, let zoneName, let ownerName):
            w.write(UInt8(7))
            w.write(recordName)
            w.write(zoneName)
            w.write(ownerName)
        case .location(let latitude, let longitude):
            w.write(UInt8(8))
            w.write(latitude)
            w.write(longitude)
        case .list(let elements):
            w.write(UInt8(9))
            w.writeVarint(elements.count)
            for element in elements { write(element, to: &w) }
        }
    }

    /// A value of the predicate; lists nested deeper than `FieldValueCodec.maximumListDepth`
    /// are damaged (a client's bytes must not recurse this reader off its stack).
    /// A value written by ``write(_:to:)``; lists nest at most `FieldValueCodec.maximumListDepth` deep.
    static func read(from r: inout ByteReader, depth: Int = 0) throws -> PredicateValue {
        switch try r.readByte() {
        case 0: return .null
        case 1: return .string(try r.readString())
        case 2: return .int(try r.readInt64())
        case 3: return .double(try r.readDouble())
        case 4: return .bool(try r.readByte() != 0)
        case 5: return .date(Date(timeIntervalSinceReferenceDate: try r.readDouble()))
        case 6: return .bytes(Data(try r.readBytes()))
        case 7:
            return .reference(
                recordName: try r.readString(), zoneName: try r.readString(), ownerName: try r.readString())
        case 8: return .location(latitude: try r.readDouble(), longitude: try r.readDouble())
        case 9:
            guard depth < FieldValueCodec.maximumListDepth else { throw EngineError.corruptValue }
            let count = try r.readVarint()
            guard count <= r.remaining else { throw EngineError.corruptValue }
            var elements: [PredicateValue] = []
            for _ in 0..<count { elements.append(try read(from: &r, depth: depth + 1)) }
            return .list(elements)
        default:
            throw EngineError.corruptValue
        }
    }

    /// `value` or its absence: 0, or 1 and the value.
    static func write(optional value: PredicateValue?, to w: inout ByteWriter) {
        guard let value else { return w.write(UInt8(0)) }
        w.write(UInt8(1))
        write(value, to: &w)
    }

    /// A value written by ``write(optional:to:)``.
    static func readOptional(from r: inout ByteReader) throws -> PredicateValue? {
        switch try r.readByte() {
        case 0: return nil
        case 1: return try read(from: &r)
        default: throw EngineError.corruptValue
        }
    }
}
