import Foundation

extension CKModifyRecordZonesOperation: LongLivedOperation {
    static var longLivedKind: String { "CKModifyRecordZonesOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        let zones = recordZonesToSave
        writer.write(bool: zones != nil)
        if let zones {
            writer.writeVarint(zones.count)
            for zone in zones { writer.write(zone: zone) }
        }
        writer.write(zoneIDs: recordZoneIDsToDelete)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        if try reader.readBool() {
            recordZonesToSave = try (0..<reader.readCount()).map { _ in try reader.readZone() }
        }
        recordZoneIDsToDelete = try reader.readZoneIDs()
    }

    /// A callback of a modify-zones operation. None is a cancellation point.
    enum Event: OperationEvent {
        /// One zone to save: the zone as stored, or why it was not saved.
        case saved(CKRecordZone.ID, Result<CKRecordZone, CKError>)
        /// One zone to delete: whether it was deleted.
        case deleted(CKRecordZone.ID, Result<Void, CKError>)
        /// The end: `nil` for success (per-zone errors were delivered already).
        case finished(CKError?)

        /// Every callback of a committed modify, in order.
        static func events(of outcome: ZoneModifyOutcome) -> [Event] {
            outcome.saved.map { Event.saved($0, $1) } + outcome.deleted.map { Event.deleted($0, $1) }
                + [.finished(nil)]
        }

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .saved(let id, .success(let zone)):
                writer.write(UInt8(1))
                writer.write(zoneID: id)
                writer.write(zone: zone)
            case .saved(let id, .failure(let error)):
                writer.write(UInt8(2))
                writer.write(zoneID: id)
                writer.write(error: error)
            case .deleted(let id, .success):
                writer.write(UInt8(3))
                writer.write(zoneID: id)
            case .deleted(let id, .failure(let error)):
                writer.write(UInt8(4))
                writer.write(zoneID: id)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(5))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext) throws -> Event {
            switch try reader.readByte() {
            case 1: return .saved(try reader.readZoneID(), .success(try reader.readZone()))
            case 2: return .saved(try reader.readZoneID(), .failure(try reader.readError(materializingIn: context)))
            case 3: return .deleted(try reader.readZoneID(), .success(()))
            case 4: return .deleted(try reader.readZoneID(), .failure(try reader.readError(materializingIn: context)))
            case 5: return .finished(try reader.readOptionalError(materializingIn: context))
            default: throw EngineError.corruptValue
            }
        }

        var isCancellationPoint: Bool { false }

        var isFinal: Bool {
            if case .finished = self { return true }
            return false
        }

        static func failed(_ error: CKError) -> Event { .finished(error) }
    }
}
