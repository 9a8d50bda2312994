import Foundation

/// Fetches record zones by ID, or every zone of the database.
///
/// A zone that does not exist fails with `zoneNotFound`. The default zone exists in the public
/// and private databases without being created; the shared database has no default zone.
open class CKFetchRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// The IDs of the zones to fetch; `nil` (as set by `fetchAllRecordZonesOperation()`) fetches
    /// every zone.
    public var recordZoneIDs: [CKRecordZone.ID]?

    /// Called once per zone with the zone or the reason it could not be fetched.
    public var perRecordZoneResultBlock: (@Sendable (CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-zone errors go to
    /// `perRecordZoneResultBlock`).
    public var fetchRecordZonesResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the fetched zones by ID, and
    /// `partialFailure` (per-zone errors under `CKPartialErrorsByItemIDKey`) when some zones
    /// could not be fetched.
    public var fetchRecordZonesCompletionBlock: (@Sendable ([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)?

    /// An operation that fetches every zone (the same as `fetchAllRecordZonesOperation()`)
    /// unless `recordZoneIDs` is set.
    public required override init() {
        super.init()
    }

    /// An operation that fetches the zones with `recordZoneIDs`.
    public convenience init(recordZoneIDs: [CKRecordZone.ID]) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
    }

    /// An operation that fetches every zone of the database (in the public and private
    /// databases the default zone included).
    public class func fetchAllRecordZonesOperation() -> Self {
        Self()
    }

    override func performOperation() {
        let results: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)]
        do {
            let context = try databaseContext()
            if let error = cancellationError { throw error }
            results = try context.fetchZones(
                recordZoneIDs.map { ids in
                    // Each zone is answered once, like CloudKit's dictionary-shaped results.
                    var seen = Set<CKRecordZone.ID>()
                    return ids.filter { seen.insert($0).inserted }
                })
        } catch {
            deliverCompletion(error: CKError.fromStore(error))
            return
        }
        var fetched: [CKRecordZone.ID: CKRecordZone] = [:]
        var partial: [AnyHashable: CKError] = [:]
        for (id, result) in results {
            switch result {
            case .success(let zone):
                fetched[id] = zone
                perRecordZoneResultBlock?(id, .success(zone))
            case .failure(let error):
                partial[id] = error
                perRecordZoneResultBlock?(id, .failure(error))
            }
        }
        fetchRecordZonesResultBlock?(.success(()))
        let error: CKError? =
            partial.isEmpty
            ? nil
            : .make(
                .partialFailure, "Failed to fetch some record zones (\(partial.count) of \(results.count))",
                userInfo: [CKPartialErrorsByItemIDKey: partial])
        fetchRecordZonesCompletionBlock?(fetched, error)
    }

    override func deliverCompletion(error: CKError) {
        fetchRecordZonesResultBlock?(.failure(error))
        fetchRecordZonesCompletionBlock?(nil, error)
    }
}
