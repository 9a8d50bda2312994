import ArgumentParser
import Foundation
import Stratus

/// `stratus-bench floor`: what the `CKRecord`s of a drain cost with no backend, no decoding
/// and no operation at all — a lower bound of any drain that hands the app `CKRecord`s, to set
/// beside the SPI replay of the same drain (Docs/Performance.md, "The floors of the targets").
///
/// With the benchmark's records (five fields, ``RecordFactory``), made once beforehand, each
/// round times, per record:
/// - `make`: a new `CKRecord` with its ID and the five values set from values already made,
///   the least an engine does to hand out a record it has read;
/// - `read`: the drain's own reading of a delivered record (``Workload/checksum(of:)``:
///   `allKeys()`, then every value), what the benchmark's app does with each record.
struct FloorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor",
        abstract: "Time making and reading the benchmark's CKRecords alone: a lower bound of any drain.")

    @Option(help: "Records per round.")
    var records = 200_000

    @Option(help: "How many rounds; the median is reported.")
    var rounds = 7

    func validate() throws {
        guard records > 0, rounds > 0 else { throw ValidationError("--records and --rounds must be positive") }
    }

    func run() throws {
        let zoneID = CKRecordZone.ID(zoneName: "floor", ownerName: CKCurrentUserDefaultName)
        let sources = (0..<records).map {
            RecordFactory.record($0, type: Workload.itemType, zoneID: zoneID, rankModulus: records)
        }
        let fields = sources.map { record in record.allKeys().map { ($0, record[$0]) } }
        var make: [Double] = []
        var read: [Double] = []
        var checksum: UInt64 = 0
        for _ in 0..<rounds {
            var made: [CKRecord] = []
            made.reserveCapacity(records)
            make.append(
                Timing.seconds {
                    for (source, values) in zip(sources, fields) {
                        let record = CKRecord(
                            recordType: source.recordType,
                            recordID: CKRecord.ID(recordName: source.recordID.recordName, zoneID: zoneID))
                        for (key, value) in values { record[key] = value }
                        made.append(record)
                    }
                })
            read.append(Timing.seconds { for record in made { checksum &+= Workload.checksum(of: record) } })
        }
        let perRecord = { (seconds: [Double]) in Format.fixed(Timing.median(seconds) / Double(records) * 1e6, 3) }
        print(
            "stratus-bench floor: \(records) records of five fields, median of \(rounds) rounds (checksum \(checksum))")
        print("  make a CKRecord from its values  \(perRecord(make)) µs per record")
        print("  read every field (the drain's app) \(perRecord(read)) µs per record")
    }
}
