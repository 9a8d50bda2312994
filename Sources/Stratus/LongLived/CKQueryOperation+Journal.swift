import Foundation

extension CKQueryOperation: LongLivedOperation {
    static var longLivedKind: String { "CKQueryOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        try writer.write(optionalQuery: query)
        try writer.write(optionalCursor: cursor)
        writer.write(bool: zoneID != nil)
        if let zoneID { writer.write(zoneID: zoneID) }
        writer.write(Int64(resultsLimit))
        writer.write(strings: desiredKeys)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        query = try reader.readOptionalQuery()
        cursor = try reader.readOptionalCursor()
        zoneID = try reader.readBool() ? try reader.readZoneID() : nil
        resultsLimit = Int(try reader.readInt64())
        desiredKeys = try reader.readStrings()
    }

    /// A callback of a query operation.
    enum Event: OperationEvent {
        /// One matching record, in sort order.
        case matched(CKRecord)
        /// The end: the cursor to continue from (`nil` when no more results), or the error.
        case finished(Result<CKQueryCursor?, CKError>)

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .matched(let record):
                writer.write(UInt8(1))
                writer.write(record: record)
            case .finished(.success(let cursor)):
                writer.write(UInt8(2))
                // The cursor's query ran, so its sort keys are valid and it always encodes.
                try? writer.write(optionalCursor: cursor)
            case .finished(.failure(let error)):
                writer.write(UInt8(3))
                writer.write(error: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext?) throws -> Event {
            switch try reader.readByte() {
            case 1: return .matched(try reader.readRecord(materializingIn: context))
            case 2: return .finished(.success(try reader.readOptionalCursor()))
            case 3: return .finished(.failure(try reader.readError(materializingIn: context)))
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
            case .matched: return .item(succeeded: true)
            case .finished(.success): return .final(nil)
            case .finished(.failure(let error)): return .final(error)
            }
        }
    }
}
