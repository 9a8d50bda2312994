import Foundation

extension CKFetchRecordZonesOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchRecordZonesOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(zoneIDs: recordZoneIDs)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        recordZoneIDs = try reader.readZoneIDs()
    }

    /// A callback of a fetch-zones operation. None is a cancellation point.
    enum Event: OperationEvent {
        /// One zone, or why it could not be fetched.
        case zone(CKRecordZone.ID, Result<CKRecordZone, CKError>)
        /// The end: `nil` for success (per-zone errors were delivered already).
        case finished(CKError?)

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .zone(let id, .success(let zone)):
                writer.write(UInt8(1))
                writer.write(zoneID: id)
                writer.write(zone: zone)
            case .zone(let id, .failure(let error)):
                writer.write(UInt8(2))
                writer.write(zoneID: id)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(3))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext) throws -> Event {
            switch try reader.readByte() {
            case 1: return .zone(try reader.readZoneID(), .success(try reader.readZone()))
            case 2: return .zone(try reader.readZoneID(), .failure(try reader.readError(materializingIn: context)))
            case 3: return .finished(try reader.readOptionalError(materializingIn: context))
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
