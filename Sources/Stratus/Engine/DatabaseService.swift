import Foundation
import StratusBackend

/// The operation layer's only way to the engine (decision 0016): the requests a
/// `CKDatabaseOperation` makes of one database. Callbacks, their order, cancellation, QoS,
/// partial failures and error shaping stay above it, in the operations, so they are the same
/// code whatever implements it.
///
/// ``DatabaseContext`` — the local engine — implements it as it is; a remote container's
/// service (decision 0016, later steps) will implement it over CloudKit Web Services. The
/// request and result types are the engine's own.
///
/// What only a local engine has stays out of the requests, behind ``localContext``: the
/// long-lived journal (decision 0006), the zone-changes read-ahead's write generation
/// (decision 0009) and the materializing of assets in replayed callbacks
/// (`purgeChangeHistory(in:)` was one until decision 0021 gave it a request). A service
/// without a local engine returns `nil` there, and each of those features checks it.
package protocol DatabaseService: Sendable {
    /// The database's scope.
    var scope: CKDatabase.Scope { get }
    /// The record name of the user the requests run for.
    var userRecordName: String { get }

    /// Applies `request` in one transaction (``DatabaseContext/modifyRecords(_:cancelled:journal:)``).
    /// `journal` is passed only by a long-lived operation run against ``localContext``'s journal.
    func modifyRecords(
        _ request: ModifyRequest, cancelled: () -> CKError?,
        journal: ((ModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> ModifyOutcome
    /// The records with `ids`, each a record or its own error, in the order asked.
    func fetchRecords(_ ids: [CKRecord.ID], desiredKeys: [String]?) throws -> [(
        CKRecord.ID, Result<CKRecord, CKError>
    )]
    /// One page of `query`'s matches, from `cursor` (the engine's cursor bytes) if given.
    func query(
        _ query: CKQuery, zoneID: CKRecordZone.ID?, cursor: Data?, limit: Int, desiredKeys: [String]?
    ) throws -> QueryPage
    /// One batch of `zoneID`'s changes after `token`.
    func fetchZoneChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int, desiredKeys: [String]?
    ) throws -> ZoneChangesBatch
    /// One batch of the database's zone changes after `token`.
    func fetchDatabaseChanges(since token: CKServerChangeToken?, limit: Int) throws -> DatabaseChangesBatch
    /// The zones with `ids`, or every zone when `ids` is `nil`.
    func fetchZones(_ ids: [CKRecordZone.ID]?) throws -> [(CKRecordZone.ID, Result<CKRecordZone, CKError>)]
    /// Saves and deletes zones in one transaction; `journal` as for ``modifyRecords(_:cancelled:journal:)``.
    func modifyZones(
        saving: [CKRecordZone], deleting: [CKRecordZone.ID],
        journal: ((ZoneModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> ZoneModifyOutcome
    /// The subscriptions with `ids`, or every subscription when `ids` is `nil`.
    func fetchSubscriptions(_ ids: [CKSubscription.ID]?) throws -> [(
        CKSubscription.ID, Result<CKSubscription, CKError>
    )]
    /// Saves and deletes subscriptions in one transaction; `journal` as for
    /// ``modifyRecords(_:cancelled:journal:)``.
    func modifySubscriptions(
        saving: [CKSubscription], deleting: [CKSubscription.ID],
        journal: ((SubscriptionModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> SubscriptionModifyOutcome

    /// The local engine's view of the same database, for the engine-only features listed
    /// above; `nil` (the default) for a service that reaches its engine over a network.
    var localContext: DatabaseContext? { get }

    /// Where long-lived operations go when the engine is a server's (decision 0016.6): the
    /// server persists and runs them, and the operation streams their callbacks. `nil` (the
    /// default) for a local engine, whose journal is ``localContext``'s.
    var remoteJournal: (any RemoteLongLivedJournal)? { get }

    /// The service for one operation whose `timeoutIntervalForRequest` is `seconds`: a remote
    /// one bounds each of its requests by it when shorter than its own timeout (decision 0016,
    /// step 5). By default the service itself: a local engine makes no requests.
    func boundingRequests(to seconds: TimeInterval) -> any DatabaseService

    /// The notifications of the user's subscriptions as the server commits them, read with a
    /// courier token of their own, for a sync engine's automatic sync (decision 0017.7); the
    /// stream ends when the server refuses the credentials, or when its consumer stops. `nil`
    /// (the default) for a local engine, which keeps no notification log.
    func subscriptionNotifications(of container: CKContainer) -> AsyncStream<CKNotification>?

    /// Purges `zoneID`'s change history (``CKDatabase/purgeChangeHistory(in:)``): the local
    /// engine does it itself, a server's service asks the server's engine (decision 0021). By
    /// default it fails with `internalError`: a service that reaches neither cannot purge.
    func purgeChangeHistory(_ zoneID: CKRecordZone.ID) throws
}

extension DatabaseService {
    /// No local engine: the engine-only features are unavailable.
    package var localContext: DatabaseContext? { nil }
    /// No server journal.
    package var remoteJournal: (any RemoteLongLivedJournal)? { nil }
    /// No requests to bound.
    package func boundingRequests(to seconds: TimeInterval) -> any DatabaseService { self }
    /// No notifications.
    package func subscriptionNotifications(of container: CKContainer) -> AsyncStream<CKNotification>? { nil }
    /// Nothing to purge with.
    package func purgeChangeHistory(_ zoneID: CKRecordZone.ID) throws {
        throw CKError.make(
            .internalError, "purging change history needs a local engine or a server; this database has neither")
    }
}

extension DatabaseContext: DatabaseService {
    /// The caller's user record name.
    package var userRecordName: String { caller.userRecordName }
    /// This context: it is the local engine.
    package var localContext: DatabaseContext? { self }
}

/// How a container's databases reach their engine when it is not the container's own: called
/// once per database, on its first operation (``CKContainer/useDatabaseService(_:)``).
package typealias DatabaseServiceFactory = @Sendable (CKDatabase) throws -> any DatabaseService
