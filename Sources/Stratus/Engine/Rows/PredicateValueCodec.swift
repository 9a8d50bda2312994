import Foundation

/// A predicate value in bytes, for the cursor of a query sorted in memory
/// (``MemorySortPosition``): a tag, then the value. Lists hold values, not lists (a record's
/// list field does not nest).
enum PredicateValueCodec {
    static func write(_ value: PredicateValue?, to w: inout ByteWriter) {
        guard let value else { return w.write(UInt8(0)) }
        switch value {
        case .null: w.write(UInt8(1))
        case .string(let s):
            w.write(UInt8(2))
            w.write(s)
        case .int(let v):
            w.write(UInt8(3))
            w.write(v)
        case .double(let v):
            w.write(UInt8(4))
            w.write(v)
        case .bool(let v): w.write(UInt8(v ? 6 : 5))
        case .date(let d):
            w.write(UInt8(7))
            w.write(d.timeIntervalSinceReferenceDate)
        case .bytes(let d):
            w.write(UInt8(8))
            w.write(bytes: d)
        case .reference(let recordName, let zoneName, let ownerName):
            w.write(UInt8(9))
            w.write(recordName)
            w.write(zoneName)
            w.write(ownerName)
        case .location(let latitude, let longitude):
            w.write(UInt8(10))
            w.write(latitude)
            w.write(longitude)
        case .list(let items):
            w.write(UInt8(11))
            w.writeVarint(items.count)
            for item in items { write(item, to: &w) }
        }
    }

    /// A value written by ``write(_:to:)``; a list inside a list is refused as damaged.
    static func read(from r: inout ByteReader, inList: Bool = false) throws -> PredicateValue? {
        switch try r.readByte() {
        case 0: return nil
        case 1: return .null
        case 2: return .string(try r.readString())
        case 3: return .int(try r.readInt64())
        case 4: return .double(try r.readDouble())
        case 5: return .bool(false)
        case 6: return .bool(true)
        case 7: return .date(Date(timeIntervalSinceReferenceDate: try r.readDouble()))
        case 8: return .bytes(Data(try r.readBytes()))
        case 9:
            return .reference(
                recordName: try r.readString(), zoneName: try r.readString(), ownerName: try r.readString())
        case 10: return .location(latitude: try r.readDouble(), longitude: try r.readDouble())
        case 11 where !inList:
            let count = try r.readVarint()
            guard count <= r.remaining else { throw EngineError.corruptValue }
            return .list(try (0..<count).map { _ in try read(from: &r, inList: true) ?? .null })
        default: throw EngineError.corruptValue
        }
    }
}
