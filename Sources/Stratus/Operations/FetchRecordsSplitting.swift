/// A fetch by ID that the engine refuses for its bytes (more than
/// `DatabaseContext.maximumFetchBytes` of fields), asked again in halves until each part fits:
/// what Apple tells an app to do with `limitExceeded`, done for it, so `CKFetchRecordsOperation`
/// returns 400 records of 1 MB as CloudKit does while no engine call, and no stratusd answer,
/// holds more than 16 MiB of them. The parts are read in separate snapshots.
enum FetchRecordsSplitting {
    /// The results of fetching `ids`, in the engine's order (each ID once, at its first
    /// occurrence); a part is asked again in halves while the service refuses it with
    /// `limitExceeded`, unless `cancelled` says the operation was cancelled in between.
    static func fetch(
        _ ids: [CKRecord.ID], desiredKeys: [String]?, from service: any DatabaseService,
        cancelled: () -> CKError?
    ) throws -> [(CKRecord.ID, Result<CKRecord, CKError>)] {
        do {
            return try service.fetchRecords(ids, desiredKeys: desiredKeys)
        } catch let error as CKError where splits(error, ids: ids, desiredKeys: desiredKeys) {
            var seen = Set<CKRecord.ID>()
            let unique = ids.filter { seen.insert($0).inserted }
            let half = (unique.count + 1) / 2
            var results = try fetch(
                Array(unique[..<half]), desiredKeys: desiredKeys, from: service, cancelled: cancelled)
            if let error = cancelled() { throw error }
            results += try fetch(Array(unique[half...]), desiredKeys: desiredKeys, from: service, cancelled: cancelled)
            return results
        }
    }

    /// Whether `error` refuses the bytes of a fetch of several `ids` that is otherwise within
    /// the limits (not more than 400 IDs, not too many `desiredKeys`): the one `limitExceeded`
    /// a smaller part cures.
    private static func splits(_ error: CKError, ids: [CKRecord.ID], desiredKeys: [String]?) -> Bool {
        guard error.code == .limitExceeded, ids.count > 1, ids.count <= Validation.maximumItemsPerRequest else {
            return false
        }
        return (try? Validation.checkDesiredKeys(desiredKeys)) != nil
    }
}
