import Foundation
import Stratus

/// The CloudKit side of a benchmark: a container over one store, its private database, and
/// the records every benchmark saves.
struct Workload {
    /// The record type of the saved, drained and queried zone.
    static let itemType = "Item"
    /// The record type of the incremental-sync zones (a type of its own, so that the sort
    /// index built for the query benchmark is not maintained by their saves).
    static let eventType = "Event"
    /// The field sorted queries sort by.
    static let rankField = "rank"

    /// The container the operations run in.
    let container: CKContainer
    /// Its private database.
    var database: CKDatabase { container.privateCloudDatabase }

    /// A container over `store`.
    init(store: BenchmarkStore) {
        container = CKContainer(identifier: "iCloud.org.stratus.bench", backend: store.backend)
    }

    /// Runs `operation` in the private database and waits for it to finish.
    func run(_ operation: CKDatabaseOperation) {
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
    }

    /// Creates the custom zone `name` (custom zones support change fetching).
    func makeZone(_ name: String) throws -> CKRecordZone.ID {
        let zoneID = CKRecordZone.ID(zoneName: name)
        let operation = CKModifyRecordZonesOperation(
            recordZonesToSave: [CKRecordZone(zoneID: zoneID)], recordZoneIDsToDelete: nil)
        let failure = Locked<String?>(nil)
        operation.modifyRecordZonesResultBlock = { result in
            if case .failure(let error) = result { failure.update { $0 = "\(error)" } }
        }
        run(operation)
        if let error = failure.value { throw BenchmarkFailure("creating zone \(name): \(error)") }
        return zoneID
    }

    /// How long a ``save(_:type:into:batchSize:rankModulus:)`` took.
    struct SaveTiming {
        /// Seconds in all, building the records included.
        var seconds: Double
        /// Seconds spent building the `CKRecord`s (the app's share, outside the operations).
        var buildSeconds: Double
        /// Process CPU seconds in all.
        var cpuSeconds: Double
    }

    /// Saves records `range` of `type` into `zoneID`, `batchSize` per
    /// `CKModifyRecordsOperation`.
    @discardableResult
    func save(
        _ range: Range<Int>, type: String, into zoneID: CKRecordZone.ID, batchSize: Int, rankModulus: Int
    ) throws -> SaveTiming {
        var buildSeconds = 0.0
        let sample = try Timing.sample {
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(start + batchSize, range.upperBound)
                var records: [CKRecord] = []
                buildSeconds += Timing.seconds {
                    records = (start..<end).map {
                        RecordFactory.record($0, type: type, zoneID: zoneID, rankModulus: rankModulus)
                    }
                }
                try saveBatch(records)
                start = end
            }
        }
        return SaveTiming(seconds: sample.wall, buildSeconds: buildSeconds, cpuSeconds: sample.cpu)
    }

    /// Saves `records` with one `CKModifyRecordsOperation`; throws on any failure.
    func saveBatch(_ records: [CKRecord]) throws {
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        let failure = Locked<String?>(nil)
        let saved = Locked(0)
        operation.perRecordSaveBlock = { _, result in
            switch result {
            case .success: saved.update { $0 += 1 }
            case .failure(let error): failure.update { $0 = $0 ?? "\(error)" }
            }
        }
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { failure.update { $0 = $0 ?? "\(error)" } }
        }
        run(operation)
        if let error = failure.value { throw BenchmarkFailure("saving records: \(error)") }
        let count = saved.value
        guard count == records.count else { throw BenchmarkFailure("saved \(count) of \(records.count) records") }
    }
}

/// The records the benchmarks save: five fields of about 200 bytes in all.
enum RecordFactory {
    /// Record `index` of `type` in `zoneID`: a 48-byte title, a 120-byte body, an integer
    /// rank, a double and a date. Ranks are a permutation of `0..<rankModulus` (when
    /// `rankModulus` records are saved), so sort order differs from save and name order.
    static func record(_ index: Int, type: String, zoneID: CKRecordZone.ID, rankModulus: Int) -> CKRecord {
        let record = CKRecord(recordType: type, recordID: CKRecord.ID(recordName: name(index), zoneID: zoneID))
        record["title"] = text(index, length: 48)
        record["body"] = text(index &* 7, length: 120)
        record[Workload.rankField] = (index &* 48_271) % max(1, rankModulus)
        record["score"] = Double(index) * 0.5
        record["createdAt"] = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
        return record
    }

    /// The record name of record `index`: `r` and nine digits.
    static func name(_ index: Int) -> String {
        let digits = String(index)
        return "r" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 ".utf8)

    private static func text(_ seed: Int, length: Int) -> String {
        var state = UInt64(truncatingIfNeeded: seed) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for _ in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(alphabet[Int(state >> 33) % alphabet.count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A benchmark that could not run as intended (an operation failed, a count is wrong).
struct BenchmarkFailure: Error, CustomStringConvertible {
    /// What went wrong.
    var description: String

    /// A failure saying `description`.
    init(_ description: String) {
        self.description = description
    }
}
