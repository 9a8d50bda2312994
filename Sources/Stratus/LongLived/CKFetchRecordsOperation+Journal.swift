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
    typealias Event = ItemFetchEvent<CKRecord.ID, CKRecord>
}
