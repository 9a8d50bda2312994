import Foundation

extension CKModifyRecordsOperation: LongLivedOperation {
    static var longLivedKind: String { "CKModifyRecordsOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        let records = recordsToSave
        writer.write(bool: records != nil)
        if let records {
            writer.writeVarint(records.count)
            for record in records { writer.write(record: record) }
        }
        writer.write(recordIDs: recordIDsToDelete)
        writer.writeVarint(savePolicy.rawValue)
        writer.write(optionalBytes: clientChangeTokenData)
        writer.write(bool: isAtomic)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        if try reader.readBool() {
            recordsToSave = try (0..<reader.readCount()).map { _ in try reader.readRecord(materializingIn: nil) }
        }
        recordIDsToDelete = try reader.readRecordIDs()
        guard let policy = RecordSavePolicy(rawValue: try reader.readVarint()) else { throw EngineError.corruptValue }
        savePolicy = policy
        clientChangeTokenData = try reader.readOptionalBytes()
        isAtomic = try reader.readBool()
    }

    /// A callback of a modify-records operation. None is a cancellation point: once the
    /// modify committed, every result is delivered.
    enum Event: OperationEvent {
        /// One record to save: the saved record, or why it was not saved.
        case saved(CKRecord.ID, Result<CKRecord, CKError>)
        /// One record to delete: whether it was deleted.
        case deleted(CKRecord.ID, Result<Void, CKError>)
        /// The end: `nil` for success (per-record errors were delivered already).
        case finished(CKError?)

        /// Every callback of a committed modify, in order.
        static func events(of outcome: ModifyOutcome) -> [Event] {
            outcome.saveResults.map { Event.saved($0, $1) } + outcome.deleteResults.map { Event.deleted($0, $1) }
                + [.finished(nil)]
        }

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .saved(let id, .success(let record)):
                writer.write(UInt8(1))
                writer.write(recordID: id)
                writer.write(record: record)
            case .saved(let id, .failure(let error)):
                writer.write(UInt8(2))
                writer.write(recordID: id)
                writer.write(error: error)
            case .deleted(let id, .success):
                writer.write(UInt8(3))
                writer.write(recordID: id)
            case .deleted(let id, .failure(let error)):
                writer.write(UInt8(4))
                writer.write(recordID: id)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(5))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext) throws -> Event {
            switch try reader.readByte() {
            case 1: return .saved(try reader.readRecordID(), .success(try reader.readRecord(materializingIn: context)))
            case 2: return .saved(try reader.readRecordID(), .failure(try reader.readError(materializingIn: context)))
            case 3: return .deleted(try reader.readRecordID(), .success(()))
            case 4: return .deleted(try reader.readRecordID(), .failure(try reader.readError(materializingIn: context)))
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
