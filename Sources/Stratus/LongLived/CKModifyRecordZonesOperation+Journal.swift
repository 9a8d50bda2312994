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

    /// A callback of a modify-zones operation.
    typealias Event = ItemModifyEvent<CKRecordZone.ID, CKRecordZone>
}
