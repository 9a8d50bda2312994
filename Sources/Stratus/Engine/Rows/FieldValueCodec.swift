import Foundation

/// The binary form of field values inside record rows.
enum FieldValueCodec {
    /// Appends `value`'s binary form to `w`.
    static func write(_ value: FieldValue, to w: inout some ByteSink) {
        switch value {
        case .string(let s):
            w.write(UInt8(1))
            w.write(s)
        case .integer(let v, let kind):
            w.write(UInt8(2))
            w.write(kind.rawValue)
            w.write(v)
        case .double(let v, let kind):
            w.write(UInt8(3))
            w.write(kind.rawValue)
            w.write(v)
        case .date(let d):
            w.write(UInt8(4))
            w.write(d.timeIntervalSinceReferenceDate)
        case .bytes(let d):
            w.write(UInt8(5))
            w.write(bytes: d)
        case .reference(let r):
            w.write(UInt8(6))
            w.write(r.recordName)
            w.write(r.zoneName)
            w.write(r.ownerName)
            w.write(r.action)
        case .location(let l):
            w.write(UInt8(7))
            for v in [
                l.latitude, l.longitude, l.altitude, l.horizontalAccuracy, l.verticalAccuracy, l.course,
                l.speed, l.timestamp,
            ] {
                w.write(v)
            }
        case .asset(let a):
            w.write(UInt8(8))
            w.write(a.contentID)
            w.write(a.size)
        case .list(let items):
            w.write(UInt8(9))
            w.writeVarint(items.count)
            for item in items { write(item, to: &w) }
        case .invalid(let name):
            w.write(UInt8(0xFF))
            w.write(name)
        }
    }

    /// How deep lists may nest in stored or sent bytes; deeper is damaged. CloudKit's lists hold
    /// no lists, and a reader recursing without a bound could be driven off its thread's stack
    /// by a client's bytes (a binary `records/modify` body, a long-lived operation's request).
    static let maximumListDepth = 16

    static func read(from r: inout some ByteReading) throws -> FieldValue {
        try read(from: &r, depth: 0)
    }

    private static func read(from r: inout some ByteReading, depth: Int) throws -> FieldValue {
        switch try r.readByte() {
        case 1: return .string(try r.readString())
        case 2:
            guard let kind = NumberKind(rawValue: try r.readByte()) else {
                throw EngineError.corruptValue
            }
            return .integer(try r.readInt64(), kind)
        case 3:
            guard let kind = NumberKind(rawValue: try r.readByte()) else {
                throw EngineError.corruptValue
            }
            return .double(try r.readDouble(), kind)
        case 4: return .date(Date(timeIntervalSinceReferenceDate: try r.readDouble()))
        case 5: return .bytes(Data(try r.readBytes()))
        case 6:
            return .reference(
                ReferenceValue(
                    recordName: try r.readString(), zoneName: try r.readString(),
                    ownerName: try r.readString(), action: try r.readByte()))
        case 7:
            return .location(
                LocationValue(
                    latitude: try r.readDouble(), longitude: try r.readDouble(),
                    altitude: try r.readDouble(), horizontalAccuracy: try r.readDouble(),
                    verticalAccuracy: try r.readDouble(), course: try r.readDouble(),
                    speed: try r.readDouble(), timestamp: try r.readDouble()))
        case 8:
            return .asset(AssetValue(contentID: try r.readString(), size: try r.readInt64(), pendingFile: nil))
        case 9:
            guard depth < maximumListDepth else { throw EngineError.corruptValue }
            let count = try r.readVarint()
            guard count <= r.remaining else { throw EngineError.corruptValue }
            var items: [FieldValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try read(from: &r, depth: depth + 1)) }
            return .list(items)
        case 0xFF: return .invalid(try r.readString())
        default: throw EngineError.corruptValue
        }
    }
}
