import Foundation

extension CKFetchRecordsOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchRecordsOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(recordIDs: recordIDs)
        writer.write(strings: desiredKeys)
        writer.write(bool: fetchesCurrentUserRecord)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        recordIDs = try reader.readRecordIDs()
        desiredKeys = try reader.readStrings()
        fetchesCurrentUserRecord = try reader.readBool()
    }

    /// A callback of a fetch-records operation.
    enum Event: OperationEvent {
        /// One requested record, or why it could not be fetched (progress, then result).
        case record(CKRecord.ID, Result<CKRecord, CKError>)
        /// The end: `nil` for success (per-record errors were delivered already).
        case finished(CKError?)

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .record(let id, .success(let record)):
                writer.write(UInt8(1))
                writer.write(recordID: id)
                writer.write(record: record)
            case .record(let id, .failure(let error)):
                writer.write(UInt8(2))
                writer.write(recordID: id)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(3))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext) throws -> Event {
            switch try reader.readByte() {
            case 1: return .record(try reader.readRecordID(), .success(try reader.readRecord(materializingIn: context)))
            case 2: return .record(try reader.readRecordID(), .failure(try reader.readError(materializingIn: context)))
            case 3: return .finished(try reader.readOptionalError(materializingIn: context))
            default: throw EngineError.corruptValue
            }
        }

        var isCancellationPoint: Bool {
            if case .finished(.some) = self { return false }
            return true
        }

        var isFinal: Bool {
            if case .finished = self { return true }
            return false
        }

        static func failed(_ error: CKError) -> Event { .finished(error) }
    }
}
