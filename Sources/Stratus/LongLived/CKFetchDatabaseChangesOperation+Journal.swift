import Foundation

extension CKFetchDatabaseChangesOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchDatabaseChangesOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(optionalToken: previousServerChangeToken)
        writer.write(Int64(resultsLimit))
        writer.write(bool: fetchAllChanges)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        previousServerChangeToken = try reader.readOptionalToken()
        resultsLimit = Int(try reader.readInt64())
        fetchAllChanges = try reader.readBool()
    }

    /// A callback of a database-changes operation. A resumed operation continues from the last
    /// journaled `tokenUpdated`.
    enum Event: OperationEvent {
        /// A zone was created or changed, or its records changed.
        case changed(CKRecordZone.ID)
        /// A zone was deleted (or purged, or reset).
        case deleted(CKRecordZone.ID, DatabaseChangeEntry.Kind)
        /// A batch ended and more follow: the token to resume from.
        case tokenUpdated(CKServerChangeToken)
        /// The end: the final token and whether more remains, or the error.
        case finished(Result<(CKServerChangeToken, Bool), CKError>)

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .changed(let id):
                writer.write(UInt8(1))
                writer.write(zoneID: id)
            case .deleted(let id, let kind):
                writer.write(UInt8(2))
                writer.write(zoneID: id)
                writer.write(kind.rawValue)
            case .tokenUpdated(let token):
                writer.write(UInt8(3))
                writer.write(token: token)
            case .finished(.success(let (token, moreComing))):
                writer.write(UInt8(4))
                writer.write(token: token)
                writer.write(bool: moreComing)
            case .finished(.failure(let error)):
                writer.write(UInt8(5))
                writer.write(error: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext?) throws -> Event {
            switch try reader.readByte() {
            case 1: return .changed(try reader.readZoneID())
            case 2:
                let id = try reader.readZoneID()
                guard let kind = DatabaseChangeEntry.Kind(rawValue: try reader.readByte()) else {
                    throw EngineError.corruptValue
                }
                return .deleted(id, kind)
            case 3: return .tokenUpdated(try reader.readToken())
            case 4: return .finished(.success((try reader.readToken(), try reader.readBool())))
            case 5: return .finished(.failure(try reader.readError(materializingIn: context)))
            default: throw EngineError.corruptValue
            }
        }

        var isCancellationPoint: Bool {
            if case .finished(.failure) = self { return false }
            return true
        }

        var isFinal: Bool {
            if case .finished = self { return true }
            return false
        }

        static func failed(_ error: CKError) -> Event { .finished(.failure(error)) }

        var logRole: OperationLogRole {
            switch self {
            case .changed, .deleted: return .item(succeeded: true)
            case .tokenUpdated: return .progress
            case .finished(.success): return .final(nil)
            case .finished(.failure(let error)): return .final(error)
            }
        }
    }
}
