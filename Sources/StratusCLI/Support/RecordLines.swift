import Foundation
import Stratus

/// Reading export files: JSON lines of `CKRecord`'s `Codable` form, moved into another zone.
struct RecordLines {
    /// The zone the records move to.
    let zoneID: CKRecordZone.ID
    private let decoder = JSONDecoder()
    private let encoder = JSONEncoder()

    init(into zoneID: CKRecordZone.ID) {
        self.zoneID = zoneID
    }

    /// The records of `lines` (blank lines already left out), moved to the zone: references
    /// to records of their original zone now point into it.
    ///
    /// - Throws: ``CLIError`` naming the first bad line (exit status 65): one that is not a
    ///   record, or a record that appears twice among `lines`.
    func decode(_ lines: [InputLine]) throws -> [CKRecord] {
        var records: [CKRecord] = []
        records.reserveCapacity(lines.count)
        var names = Set<String>()
        for line in lines {
            let record: CKRecord
            do {
                record = try decode(line.bytes)
            } catch {
                throw CLIError(
                    "line \(line.number) is not a record as `stratus export` writes it: \(FieldsJSON.reason(error))",
                    exitCode: CLIError.dataError)
            }
            guard names.insert(record.recordID.recordName).inserted else {
                throw CLIError(
                    "line \(line.number): record '\(record.recordID.recordName)' appears twice",
                    exitCode: CLIError.dataError)
            }
            records.append(record)
        }
        return records
    }

    /// One line's record, moved to the zone.
    func decode(_ line: Data) throws -> CKRecord {
        let exported = try decoder.decode(ExportedRecord.self, from: line)
        return try decoder.decode(CKRecord.self, from: encoder.encode(exported.moved(to: zoneID)))
    }
}
