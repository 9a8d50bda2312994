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
    public var perRecordZoneResultBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-zone errors go to
    /// `perRecordZoneResultBlock`).
    public var fetchRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the fetched zones by ID, and
    /// `partialFailure` (per-zone errors under `CKPartialErrorsByItemIDKey`) when some zones
    /// could not be fetched.
    @available(macOS, deprecated: 12.0, message: "Use fetchRecordZonesResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use fetchRecordZonesResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use fetchRecordZonesResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use fetchRecordZonesResultBlock instead")
    public var fetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)? {
        get { legacyFetchRecordZonesCompletionBlock }
        set { legacyFetchRecordZonesCompletionBlock = newValue }
    }
    /// The storage of `fetchRecordZonesCompletionBlock`, which the operation reads without the deprecation.
    var legacyFetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)?
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
        var delivery = ItemFetchDelivery<CKRecordZone.ID, CKRecordZone>()
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { service, _ in
                if let error = cancellationError { throw error }
                let results = try service.fetchZones(
                    recordZoneIDs.map { ids in
                        // Each zone is answered once, like CloudKit's dictionary-shaped results.
                        var seen = Set<CKRecordZone.ID>()
                        return ids.filter { seen.insert($0).inserted }
                    })
                return .deliver(results.map { Event.item($0, $1) } + [.finished(nil)])
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ delivery: inout ItemFetchDelivery<CKRecordZone.ID, CKRecordZone>) {
        switch event {
        case .item(let id, let result):
            delivery.add(id, result)
            perRecordZoneResultBlock?(id, result.mapError { $0 })
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            fetchRecordZonesResultBlock?(.success(()))
            let error = delivery.partialFailure(fetching: "record zones")
            legacyFetchRecordZonesCompletionBlock?(delivery.fetched, error)
        }
    }

    override func deliverCompletion(error: CKError) {
        fetchRecordZonesResultBlock?(.failure(error))
        legacyFetchRecordZonesCompletionBlock?(nil, error)
    }
}
