/// A fetch by ID asked of the engine in parts that each fit its byte budget: the engine refuses
/// a fetch whose records hold more than `DatabaseContext.maximumFetchBytes` of fields with
/// `limitExceeded`, and this asks again for fewer. It is what Apple tells an app to do with
/// `limitExceeded`, done for it, so `CKFetchRecordsOperation` returns 400 records of 1 MB as
/// CloudKit does while no engine call, no stratusd answer and no journal append of a
/// long-lived fetch holds more than 16 MiB of them. The parts are read in separate snapshots.
///
/// The first part asks for every ID, as sent (so the engine's checks of the request, such as
/// its 400 IDs, apply to the whole). A refused part is asked again in halves; after a part that
/// fit, the next asks for as many records as 90 % of the budget holds at that part's bytes per
/// record, so records of about one size are fetched without another refusal, and small records
/// after large ones are not fetched a few at a time.
struct FetchRecordsParts {
    /// The IDs as the operation lists them.
    private let asked: [CKRecord.ID]
    /// Each ID once, at its first occurrence: the order of the results.
    private let ids: [CKRecord.ID]
    private let desiredKeys: [String]?
    /// How many IDs the next part asks for.
    private var size: Int

    init(_ asked: [CKRecord.ID], desiredKeys: [String]?) {
        var seen = Set<CKRecord.ID>()
        self.asked = asked
        ids = asked.filter { seen.insert($0).inserted }
        self.desiredKeys = desiredKeys
        size = ids.count
    }

    /// How many results the whole fetch has: one per distinct ID.
    var count: Int { ids.count }

    /// The results of the next part, which starts after the first `start` results (those
    /// delivered so far), in the engine's order: each ID once, at its first occurrence. A part
    /// refused for its bytes is asked again in halves, unless `cancelled` says the operation
    /// was cancelled in between.
    mutating func next(
        after start: Int, from service: any DatabaseService, cancelled: () -> CKError?
    ) throws -> [(CKRecord.ID, Result<CKRecord, CKError>)] {
        if start == 0 && size >= ids.count {
            do {
                return try Self.checked(service.fetchRecords(asked, desiredKeys: desiredKeys), count: ids.count)
            } catch let error as CKError where splits(error, ids: asked) {
                size = (ids.count + 1) / 2
                if let error = cancelled() { throw error }
            }
        }
        while true {
            let part = Array(ids[min(start, ids.count)..<min(ids.count, start + size)])
            do {
                let results = try Self.checked(service.fetchRecords(part, desiredKeys: desiredKeys), count: part.count)
                size = Self.nextSize(after: results)
                return results
            } catch let error as CKError where splits(error, ids: part) {
                size = (part.count + 1) / 2
                if let error = cancelled() { throw error }
            }
        }
    }

    /// `results`, when they are one per distinct ID asked (`count`): the next part starts after
    /// them, so another number would make IDs repeat or go missing.
    private static func checked(
        _ results: [(CKRecord.ID, Result<CKRecord, CKError>)], count: Int
    ) throws -> [(CKRecord.ID, Result<CKRecord, CKError>)] {
        guard results.count == count else {
            throw CKError.make(
                .serverResponseLost,
                "a fetch of \(count) records answered \(results.count) results; retry the operation")
        }
        return results
    }

    /// The IDs the part after `results` asks for: as many as 90 % of the byte budget holds at
    /// the bytes of their records found (counted as the engine counts them) per record found,
    /// at least one; IDs not found count as records, so a part of missing records does not make
    /// the next one too large.
    private static func nextSize(after results: [(CKRecord.ID, Result<CKRecord, CKError>)]) -> Int {
        var bytes = 0
        var found = 0
        for case (_, .success(let record)) in results {
            found += 1
            let fields = record.storedFields
            for (name, value) in zip(fields.names, fields.values) { bytes += name.utf8.count + value.storageSize }
        }
        guard bytes > 0 else { return Validation.maximumItemsPerRequest }
        let fitting = Double(found) * Double(DatabaseContext.maximumFetchBytes) * 0.9 / Double(bytes)
        return max(1, Int(min(fitting, Double(Validation.maximumItemsPerRequest))))
    }

    /// Whether `error` refuses the bytes of a fetch of several `ids` that is otherwise within
    /// the limits (not more than 400 IDs, not too many `desiredKeys`): the one `limitExceeded`
    /// a smaller part cures.
    private func splits(_ error: CKError, ids: [CKRecord.ID]) -> Bool {
        guard error.code == .limitExceeded, ids.count > 1, ids.count <= Validation.maximumItemsPerRequest else {
            return false
        }
        return (try? Validation.checkDesiredKeys(desiredKeys)) != nil
    }
}
