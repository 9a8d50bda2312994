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

    /// A callback of a modify-records operation.
    typealias Event = ItemModifyEvent<CKRecord.ID, CKRecord>
}
