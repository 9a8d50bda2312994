import Foundation
import Stratus

/// The peer's shapes through the embedded CloudKit API (no HTTP) on a store: what
/// `stratusd` adds is the difference. `since-paged` is not measured here (the embedded fetch
/// delivers record by record; pages are an HTTP matter).
struct EmbeddedPeerWorkload {
    let workload: Workload
    let records: Int

    /// One run of the shapes into `timings`.
    func run(_ number: Int, into timings: inout PeerShapeTimings) throws {
        let zone = try workload.makeZone("single\(number)")
        let start = try workload.fetchChanges(zone, since: nil).token
        var half: CKServerChangeToken?
        var seconds = 0.0
        for index in 0..<records {
            seconds += try Timing.seconds { try save([index], in: zone) }
            if index == records / 2 - 1 { half = try workload.fetchChanges(zone, since: start).token }
        }
        timings.add(.createSingle, seconds)
        timings.add(.getByID, try Timing.seconds { for index in 0..<records { try fetch(index, in: zone) } })
        for (shape, token) in [(PeerShape.sinceAll, start), (.sinceHalf, half)] {
            var got = 0
            timings.add(shape, try Timing.seconds { got = try workload.fetchChanges(zone, since: token).records })
            guard got == shape.count(of: records) else { throw BenchmarkFailure("\(shape.rawValue): \(got) changes") }
        }
        let bulk = try workload.makeZone("bulk\(number)")
        timings.add(
            .createBatch,
            try Timing.seconds {
                for first in stride(from: 0, to: records, by: PeerShape.batchSize) {
                    try save(Array(first..<min(first + PeerShape.batchSize, records)), in: bulk)
                }
            })
    }

    private func save(_ indices: [Int], in zone: CKRecordZone.ID) throws {
        let saved = indices.map { index in
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r\(index)", zoneID: zone))
            record["title"] = PeerPayload.title(index)
            record["blob"] = PeerPayload.blob(index)
            return record
        }
        let operation = CKModifyRecordsOperation(recordsToSave: saved, recordIDsToDelete: nil)
        let failure = Locked<String?>(nil)
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { failure.update { $0 = "\(error)" } }
        }
        workload.run(operation)
        if let error = failure.value { throw BenchmarkFailure("saving records: \(error)") }
    }

    private func fetch(_ index: Int, in zone: CKRecordZone.ID) throws {
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "r\(index)", zoneID: zone)])
        let found = Locked(false)
        operation.perRecordResultBlock = { _, result in
            if case .success = result { found.update { $0 = true } }
        }
        workload.run(operation)
        guard found.value else { throw BenchmarkFailure("record r\(index) not found") }
    }
}
