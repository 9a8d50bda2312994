import ArgumentParser
import Foundation
import Stratus

/// `stratus-bench floor`: what the `CKRecord`s of a drain cost with no backend, no decoding
/// and no operation at all — a lower bound of any drain that hands the app `CKRecord`s, to set
/// beside the SPI replay of the same drain (Docs/Performance.md, "The floors of the targets").
///
/// From the benchmark's records (five fields, ``RecordFactory``), made once beforehand, each
/// round makes new ones 256 at a time and reads each chunk right after making it, as a drain
/// reads what it is handed while it is still in the cache, and times, per record:
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
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            // Chunks of 256, each read right after it was made, as a drain reads the records
            // it is handed: the records are in the cache when they are read.
            var making = Duration.zero
            var reading = Duration.zero
            var made: [CKRecord] = []
            made.reserveCapacity(256)
            for start in stride(from: 0, to: records, by: 256) {
                made.removeAll(keepingCapacity: true)
                let madeAt = clock.now
                for index in start..<min(start + 256, records) {
                    let source = sources[index]
                    let record = CKRecord(
                        recordType: source.recordType,
                        recordID: CKRecord.ID(recordName: source.recordID.recordName, zoneID: zoneID))
                    for (key, value) in fields[index] { record[key] = value }
                    made.append(record)
                }
                let readAt = clock.now
                for record in made { checksum &+= Workload.checksum(of: record) }
                making += readAt - madeAt
                reading += clock.now - readAt
            }
            make.append(making.seconds)
            read.append(reading.seconds)
        }
        let perRecord = { (seconds: [Double]) in Format.fixed(Timing.median(seconds) / Double(records) * 1e6, 3) }
        print(
            "stratus-bench floor: \(records) records of five fields, median of \(rounds) rounds (checksum \(checksum))")
        print("  make a CKRecord from its values  \(perRecord(make)) µs per record")
        print("  read every field (the drain's app) \(perRecord(read)) µs per record")
    }
}
