import Foundation
import Stratus
import StratusBackend
import Synchronization

/// A ``DatabaseService`` that forwards every request to a real engine's database (`base`, a
/// `DatabaseContext` over a real store) and counts the requests by name. Not a mock: every
/// answer is the engine's. Registered for a container with `useDatabaseService(_:)`, it shows
/// which requests the operations make through the seam of decision 0016.
final class CountingDatabaseService: DatabaseService {
    /// The requests of the seam, and `userRecordName`.
    enum Call: String, CaseIterable, Sendable {
        case modifyRecords, fetchRecords, query, fetchZoneChanges, fetchDatabaseChanges
        case fetchZones, modifyZones, fetchSubscriptions, modifySubscriptions, userRecordName
    }

    /// The engine's database every request goes to.
    let base: DatabaseContext
    /// Whether ``localContext`` exposes `base`; when `false` the service looks like one across
    /// a network, without the engine-only features.
    let exposesLocalEngine: Bool
    private let counts = Mutex<[Call: Int]>([:])

    /// A service forwarding to `base`.
    init(base: DatabaseContext, exposesLocalEngine: Bool = true) {
        self.base = base
        self.exposesLocalEngine = exposesLocalEngine
    }

    /// How many times each request was made.
    var calls: [Call: Int] { counts.withLock { $0 } }

    /// Counts `call`, then runs it.
    private func counting<T>(_ call: Call, _ body: () throws -> T) rethrows -> T {
        counts.withLock { $0[call, default: 0] += 1 }
        return try body()
    }

    var scope: CKDatabase.Scope { base.scope }
    var userRecordName: String { counting(.userRecordName) { base.userRecordName } }
    var localContext: DatabaseContext? { exposesLocalEngine ? base : nil }

    func modifyRecords(
        _ request: ModifyRequest, cancelled: () -> CKError?,
        journal: ((ModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> ModifyOutcome {
        try counting(.modifyRecords) { try base.modifyRecords(request, cancelled: cancelled, journal: journal) }
    }

    func fetchRecords(_ ids: [CKRecord.ID], desiredKeys: [String]?) throws -> [(
        CKRecord.ID, Result<CKRecord, CKError>
    )] {
        try counting(.fetchRecords) { try base.fetchRecords(ids, desiredKeys: desiredKeys) }
    }

    func query(
        _ query: CKQuery, zoneID: CKRecordZone.ID?, cursor: Data?, limit: Int, desiredKeys: [String]?
    ) throws -> QueryPage {
        try counting(.query) {
            try base.query(query, zoneID: zoneID, cursor: cursor, limit: limit, desiredKeys: desiredKeys)
        }
    }

    func fetchZoneChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int, desiredKeys: [String]?
    ) throws -> ZoneChangesBatch {
        try counting(.fetchZoneChanges) {
            try base.fetchZoneChanges(zoneID, since: token, limit: limit, desiredKeys: desiredKeys)
        }
    }

    func fetchDatabaseChanges(since token: CKServerChangeToken?, limit: Int) throws -> DatabaseChangesBatch {
        try counting(.fetchDatabaseChanges) { try base.fetchDatabaseChanges(since: token, limit: limit) }
    }

    func fetchZones(_ ids: [CKRecordZone.ID]?) throws -> [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] {
        try counting(.fetchZones) { try base.fetchZones(ids) }
    }

    func modifyZones(
        saving: [CKRecordZone], deleting: [CKRecordZone.ID],
        journal: ((ZoneModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> ZoneModifyOutcome {
        try counting(.modifyZones) { try base.modifyZones(saving: saving, deleting: deleting, journal: journal) }
    }

    func fetchSubscriptions(_ ids: [CKSubscription.ID]?) throws -> [(
        CKSubscription.ID, Result<CKSubscription, CKError>
    )] {
        try counting(.fetchSubscriptions) { try base.fetchSubscriptions(ids) }
    }

    func modifySubscriptions(
        saving: [CKSubscription], deleting: [CKSubscription.ID],
        journal: ((SubscriptionModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> SubscriptionModifyOutcome {
        try counting(.modifySubscriptions) {
            try base.modifySubscriptions(saving: saving, deleting: deleting, journal: journal)
        }
    }
}
