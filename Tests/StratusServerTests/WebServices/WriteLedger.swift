import Foundation
import Synchronization
import Testing

/// One `records/modify` a fault test sent: a batch of new records in the private database,
/// in the atomic custom zone (all or nothing) or in the default zone (record by record), and
/// whether the server acknowledged it (200, no per-record error).
struct SentBatch: Sendable {
    /// The atomic custom zone every fault test makes, or `nil` for the default zone.
    var zone: String?
    var names: [String]
    var acknowledged: Bool

    /// The atomic custom zone the fault tests write to.
    static let atomicZone = "Atomic"

    /// Batch `batch` of writer `writer`: `size` records named after both, with a `title`
    /// equal to the name (what the check after the fault looks for); even batches go to the
    /// atomic zone, odd ones to the default zone.
    static func planned(writer: Int, batch: Int, size: Int = 8) -> SentBatch {
        SentBatch(
            zone: batch.isMultiple(of: 2) ? atomicZone : nil,
            names: (0..<size).map { "w\(writer)-b\(batch)-r\($0)" }, acknowledged: false)
    }

    /// The `records/modify` body that creates the batch's records.
    var body: [String: Any] {
        var body: [String: Any] = [
            "operations": names.map { name -> [String: Any] in
                [
                    "operationType": "create",
                    "record": ["recordName": name, "recordType": "Item", "fields": ["title": ["value": name]]],
                ]
            }
        ]
        if let zone { body["zoneID"] = ["zoneName": zone] }
        return body
    }
}

/// The batches a fault test's writers sent, shared by them.
final class WriteLedger: Sendable {
    private let batches = Mutex<[SentBatch]>([])

    func record(_ batch: SentBatch) { batches.withLock { $0.append(batch) } }

    var all: [SentBatch] { batches.withLock { $0 } }
    var acknowledgedCount: Int { batches.withLock { $0.count(where: \.acknowledged) } }
}

extension WebServicesFixture {
    /// Makes alice's atomic custom zone ``SentBatch/atomicZone``.
    func makeAtomicZone() async throws {
        let made = try await post(
            "zones/modify",
            ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": SentBatch.atomicZone]]]]],
            database: "private")
        try #require(made.status == 200, "zones/modify: \(made.json)")
    }

    /// Sends `batch` to `baseURL` (else the fixture's server) and returns it, marked
    /// acknowledged when the server saved every record, with the answer's outline; throws
    /// when no answer came.
    func write(_ batch: SentBatch, at baseURL: URL? = nil) async throws -> (SentBatch, AnswerOutline) {
        let answer = AnswerOutline(try await post("records/modify", batch.body, database: "private", at: baseURL))
        var sent = batch
        sent.acknowledged =
            answer.status == 200 && answer.recordCount == batch.names.count && answer.recordErrorCodes.isEmpty
        return (sent, answer)
    }

    /// The names of `batch`'s records the store holds, each checked whole (its `title` as
    /// sent): a record there but not whole is reported as an issue.
    func presentNames(of batch: SentBatch, at baseURL: URL? = nil) async throws -> Set<String> {
        var body: [String: Any] = ["records": batch.names.map { ["recordName": $0] }]
        if let zone = batch.zone { body["zoneID"] = ["zoneName": zone] }
        let answer = try await post("records/lookup", body, database: "private", at: baseURL)
        try #require(answer.status == 200, "records/lookup: \(answer.json)")
        var present = Set<String>()
        for record in answer.records where record["serverErrorCode"] == nil {
            let name = record["recordName"] as? String ?? "?"
            let title = ((record["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String
            #expect(title == name, "record \(name) is there but not whole: \(record)")
            present.insert(name)
        }
        return present
    }

    /// Checks every batch in `ledger` against the store: an acknowledged batch is all there;
    /// an unacknowledged batch in the atomic zone is all there or not at all; every record
    /// there is whole. Asks `baseURL`, else the fixture's server.
    func verify(_ ledger: WriteLedger, at baseURL: URL? = nil) async throws {
        for batch in ledger.all {
            let present = try await presentNames(of: batch, at: baseURL)
            if batch.acknowledged {
                #expect(
                    present.count == batch.names.count,
                    "acknowledged but lost: \(Set(batch.names).subtracting(present))")
            } else if batch.zone != nil {
                #expect(
                    present.isEmpty || present.count == batch.names.count,
                    "an unacknowledged atomic batch is half there: \(present.sorted())")
            }
        }
    }
}

/// What a fault test looks at in an answer, `Sendable`.
struct AnswerOutline: Sendable {
    var status: Int
    /// The whole-request refusal's code, if any.
    var serverErrorCode: String?
    var retryAfter: Int?
    var recordCount: Int
    /// The per-record error codes, in order.
    var recordErrorCodes: [String]

    init(_ answer: WebServicesFixture.Answer) {
        status = answer.status
        serverErrorCode = answer.json["serverErrorCode"] as? String
        retryAfter = (answer.json["retryAfter"] as? NSNumber)?.intValue
        recordCount = answer.records.count
        recordErrorCodes = answer.records.compactMap { $0["serverErrorCode"] as? String }
    }

    /// A refusal a client retries by itself: 503 `TRY_AGAIN_LATER` with a `retryAfter`.
    var isRetryable: Bool { status == 503 && serverErrorCode == "TRY_AGAIN_LATER" && retryAfter != nil }
}
