import Foundation

extension CKFetchRecordZoneChangesOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchRecordZoneChangesOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(zoneIDs: recordZoneIDs)
        let configurations = configurationsByRecordZoneID
        writer.write(bool: configurations != nil)
        if let configurations {
            writer.writeVarint(configurations.count)
            for (zoneID, configuration) in configurations {
                writer.write(zoneID: zoneID)
                writer.write(optionalToken: configuration.previousServerChangeToken)
                writer.write(Int64(configuration.resultsLimit))
                writer.write(strings: configuration.desiredKeys)
            }
        }
        let options = legacyOptionsByRecordZoneID
        writer.write(bool: options != nil)
        if let options {
            writer.writeVarint(options.count)
            for (zoneID, option) in options {
                writer.write(zoneID: zoneID)
                writer.write(optionalToken: option.previousServerChangeToken)
                writer.write(Int64(option.legacyResultsLimit))
                writer.write(strings: option.legacyDesiredKeys)
            }
        }
        writer.write(bool: fetchAllChanges)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        recordZoneIDs = try reader.readZoneIDs()
        if try reader.readBool() {
            var configurations: [CKRecordZone.ID: ZoneConfiguration] = [:]
            for _ in 0..<(try reader.readCount()) {
                let zoneID = try reader.readZoneID()
                let configuration = ZoneConfiguration()
                configuration.previousServerChangeToken = try reader.readOptionalToken()
                configuration.resultsLimit = Int(try reader.readInt64())
                configuration.desiredKeys = try reader.readStrings()
                configurations[zoneID] = configuration
            }
            configurationsByRecordZoneID = configurations
        }
        if try reader.readBool() {
            var options: [CKRecordZone.ID: ZoneOptions] = [:]
            for _ in 0..<(try reader.readCount()) {
                let zoneID = try reader.readZoneID()
                let option = ZoneOptions()
                option.previousServerChangeToken = try reader.readOptionalToken()
                option.legacyResultsLimit = Int(try reader.readInt64())
                option.legacyDesiredKeys = try reader.readStrings()
                options[zoneID] = option
            }
            legacyOptionsByRecordZoneID = options
        }
        fetchAllChanges = try reader.readBool()
    }

    /// A callback of a zone-changes operation. A resumed operation continues with the zone
    /// after the last journaled `zoneFinished`, from the last journaled `tokensUpdated`.
    enum Event: OperationEvent {
        /// A changed record, in its latest state.
        case changed(CKRecord)
        /// A deleted record, with its type.
        case deleted(CKRecord.ID, CKRecord.RecordType)
        /// A batch of a zone ended and more follow: the token to resume from.
        case tokensUpdated(CKRecordZone.ID, CKServerChangeToken, Data?)
        /// A zone ended: its final token, client token data and whether more remains, or its
        /// error.
        case zoneFinished(CKRecordZone.ID, Result<(CKServerChangeToken, Data?, Bool), CKError>)
        /// The end: `nil` for success (per-zone errors were delivered already).
        case finished(CKError?)

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .changed(let record):
                writer.write(UInt8(1))
                writer.write(record: record)
            case .deleted(let id, let type):
                writer.write(UInt8(2))
                writer.write(recordID: id)
                writer.write(type)
            case .tokensUpdated(let zoneID, let token, let data):
                writer.write(UInt8(3))
                writer.write(zoneID: zoneID)
                writer.write(token: token)
                writer.write(optionalBytes: data)
            case .zoneFinished(let zoneID, .success(let (token, data, moreComing))):
                writer.write(UInt8(4))
                writer.write(zoneID: zoneID)
                writer.write(token: token)
                writer.write(optionalBytes: data)
                writer.write(bool: moreComing)
            case .zoneFinished(let zoneID, .failure(let error)):
                writer.write(UInt8(5))
                writer.write(zoneID: zoneID)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(6))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext?) throws -> Event {
            switch try reader.readByte() {
            case 1: return .changed(try reader.readRecord(materializingIn: context))
            case 2: return .deleted(try reader.readRecordID(), try reader.readString())
            case 3:
                return .tokensUpdated(try reader.readZoneID(), try reader.readToken(), try reader.readOptionalBytes())
            case 4:
                let zoneID = try reader.readZoneID()
                let token = try reader.readToken()
                return .zoneFinished(zoneID, .success((token, try reader.readOptionalBytes(), try reader.readBool())))
            case 5:
                return .zoneFinished(try reader.readZoneID(), .failure(try reader.readError(materializingIn: context)))
            case 6: return .finished(try reader.readOptionalError(materializingIn: context))
            default: throw EngineError.corruptValue
            }
        }

        var isCancellationPoint: Bool {
            switch self {
            case .changed, .deleted, .tokensUpdated, .zoneFinished(_, .success): return true
            case .zoneFinished(_, .failure), .finished: return false
            }
        }

        var isFinal: Bool {
            if case .finished = self { return true }
            return false
        }

        static func failed(_ error: CKError) -> Event { .finished(error) }

        var logRole: OperationLogRole {
            switch self {
            case .changed, .deleted: return .item(succeeded: true)
            case .tokensUpdated, .zoneFinished(_, .success): return .progress
            case .zoneFinished(_, .failure): return .zoneFailed
            case .finished(let error): return .final(error)
            }
        }
    }
}
