import Foundation

extension CKFetchRecordZonesOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchRecordZonesOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(zoneIDs: recordZoneIDs)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        recordZoneIDs = try reader.readZoneIDs()
    }

    /// A callback of a fetch-zones operation.
    typealias Event = ItemFetchEvent<CKRecordZone.ID, CKRecordZone>
}
