public import Foundation

/// Fetches the changes of record zones since change tokens: changed records (each once, in its
/// latest state), deletions, new tokens per batch, and a final token per zone.
open class CKFetchRecordZoneChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// What to fetch from one zone.
    public final class ZoneConfiguration: NSObject, @unchecked Sendable {
        /// Where to start; `nil` fetches the whole zone.
        public var previousServerChangeToken: CKServerChangeToken?
        /// The most changes per batch; 0 lets the server choose.
        public var resultsLimit: Int = 0
        /// The fields to fetch; `nil` for all, `[]` for system fields only.
        public var desiredKeys: [CKRecord.FieldKey]?

        /// An empty configuration.
        public override init() {
            super.init()
        }

        /// A configuration with a token, a limit and desired keys.
        public convenience init(
            previousServerChangeToken: CKServerChangeToken? = nil, resultsLimit: Int? = nil,
            desiredKeys: [CKRecord.FieldKey]? = nil
        ) {
            self.init()
            self.previousServerChangeToken = previousServerChangeToken
            self.resultsLimit = resultsLimit ?? 0
            self.desiredKeys = desiredKeys
        }
    }

    /// Deprecated in CloudKit (use `ZoneConfiguration`).
    public final class ZoneOptions: NSObject, @unchecked Sendable {
        /// Where to start; `nil` fetches the whole zone.
        public var previousServerChangeToken: CKServerChangeToken?
        /// The most changes per batch; 0 lets the server choose.
        @available(macOS, deprecated: 10.14, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        @available(iOS, deprecated: 12.0, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        @available(tvOS, deprecated: 12.0, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        @available(watchOS, deprecated: 5.0, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        public var resultsLimit: Int {
            get { legacyResultsLimit }
            set { legacyResultsLimit = newValue }
        }
        /// The storage of `resultsLimit`, which the operation reads without the deprecation.
        var legacyResultsLimit = 0
        /// The fields to fetch.
        @available(macOS, deprecated: 10.14, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        @available(iOS, deprecated: 12.0, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        @available(tvOS, deprecated: 12.0, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        @available(watchOS, deprecated: 5.0, message: "Use CKFetchRecordZoneChangesOperation.ZoneConfiguration")
        public var desiredKeys: [String]? {
            get { legacyDesiredKeys }
            set { legacyDesiredKeys = newValue }
        }
        /// The storage of `desiredKeys`, which the operation reads without the deprecation.
        var legacyDesiredKeys: [String]?

        /// Empty options.
        public override init() {
            super.init()
        }
    }

    /// The zones to fetch, one after the other.
    public var recordZoneIDs: [CKRecordZone.ID]?
    /// Per-zone tokens, limits and desired keys.
    public var configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]?
    /// Deprecated in CloudKit: per-zone options; used when no configuration is given.
    @available(macOS, deprecated: 10.14, message: "Use configurationsByRecordZoneID instead")
    @available(iOS, deprecated: 12.0, message: "Use configurationsByRecordZoneID instead")
    @available(tvOS, deprecated: 12.0, message: "Use configurationsByRecordZoneID instead")
    @available(watchOS, deprecated: 5.0, message: "Use configurationsByRecordZoneID instead")
    public var optionsByRecordZoneID: [CKRecordZone.ID: ZoneOptions]? {
        get { legacyOptionsByRecordZoneID }
        set { legacyOptionsByRecordZoneID = newValue }
    }
    /// The storage of `optionsByRecordZoneID`, which the operation reads without the deprecation.
    var legacyOptionsByRecordZoneID: [CKRecordZone.ID: ZoneOptions]?
    /// Whether to keep fetching until each zone is drained (default `true`); when `false`,
    /// one batch per zone, with `moreComing` saying whether more remains.
    public var fetchAllChanges = true

    /// Called once per changed record.
    public var recordWasChangedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Called once per deleted record, with its type.
    public var recordWithIDWasDeletedBlock: ((CKRecord.ID, CKRecord.RecordType) -> Void)?
    /// Called after each batch of a zone but its last, with a token to resume from.
    public var recordZoneChangeTokensUpdatedBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?) -> Void)?
    /// Called once per zone at its end, with the final token or the zone's error.
    public var recordZoneFetchResultBlock:
        (
            (
                CKRecordZone.ID,
                Result<
                    (serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error
                >
            ) -> Void
        )?
    /// Called once at the end.
    public var fetchRecordZoneChangesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called per changed record; ignored when `recordWasChangedBlock`
    /// is set.
    @available(macOS, deprecated: 12.0, message: "Use recordWasChangedBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use recordWasChangedBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use recordWasChangedBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use recordWasChangedBlock instead")
    public var recordChangedBlock: ((CKRecord) -> Void)? {
        get { legacyRecordChangedBlock }
        set { legacyRecordChangedBlock = newValue }
    }
    /// The storage of `recordChangedBlock`, which the operation reads without the deprecation.
    var legacyRecordChangedBlock: ((CKRecord) -> Void)?
    /// Deprecated in CloudKit: called once per zone at its end.
    @available(macOS, deprecated: 12.0, message: "Use recordZoneFetchResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use recordZoneFetchResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use recordZoneFetchResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use recordZoneFetchResultBlock instead")
    public var recordZoneFetchCompletionBlock:
        ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)?
    {
        get { legacyRecordZoneFetchCompletionBlock }
        set { legacyRecordZoneFetchCompletionBlock = newValue }
    }
    /// The storage of `recordZoneFetchCompletionBlock`, which the operation reads without the deprecation.
    var legacyRecordZoneFetchCompletionBlock:
        ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)?
    /// Deprecated in CloudKit: called once at the end; per-zone errors come as
    /// `partialFailure`.
    @available(macOS, deprecated: 12.0, message: "Use fetchRecordZoneChangesResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use fetchRecordZoneChangesResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use fetchRecordZoneChangesResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use fetchRecordZoneChangesResultBlock instead")
    public var fetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyFetchRecordZoneChangesCompletionBlock }
        set { legacyFetchRecordZoneChangesCompletionBlock = newValue }
    }
    /// The storage of `fetchRecordZoneChangesCompletionBlock`, which the operation reads without the deprecation.
    var legacyFetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)?
    /// An operation with no zones.
    public override init() {
        super.init()
    }

    /// An operation fetching `recordZoneIDs` with per-zone configurations.
    public convenience init(
        recordZoneIDs: [CKRecordZone.ID]? = nil,
        configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]? = nil
    ) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = configurationsByRecordZoneID
    }

    /// Deprecated in CloudKit: an operation fetching `recordZoneIDs` with per-zone options.
    @available(macOS, deprecated: 10.14, message: "Use init(recordZoneIDs:configurationsByRecordZoneID:)")
    @available(iOS, deprecated: 12.0, message: "Use init(recordZoneIDs:configurationsByRecordZoneID:)")
    @available(tvOS, deprecated: 12.0, message: "Use init(recordZoneIDs:configurationsByRecordZoneID:)")
    @available(watchOS, deprecated: 5.0, message: "Use init(recordZoneIDs:configurationsByRecordZoneID:)")
    public convenience init(
        recordZoneIDs: [CKRecordZone.ID], optionsByRecordZoneID: [CKRecordZone.ID: ZoneOptions]? = nil
    ) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.legacyOptionsByRecordZoneID = optionsByRecordZoneID
    }

    private func settings(for zoneID: CKRecordZone.ID) -> (CKServerChangeToken?, Int, [String]?) {
        if let configuration = configurationsByRecordZoneID?[zoneID] {
            return (configuration.previousServerChangeToken, configuration.resultsLimit, configuration.desiredKeys)
        }
        if let options = legacyOptionsByRecordZoneID?[zoneID] {
            return (options.previousServerChangeToken, options.legacyResultsLimit, options.legacyDesiredKeys)
        }
        return (nil, 0, nil)
    }

    /// The next batch, read while this one is delivered (decision 0009). It is ended before the
    /// final callback (``deliverCompletion(error:)``, `.finished`), not only when
    /// ``performOperation()`` returns: an app may close the backend from its final callback.
    private let readAhead = ZoneChangesReadAhead()

    override func performOperation() {
        var delivery = Delivery()
        defer { readAhead.finish() }
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { service, _ in
                if service.scope == .public {
                    throw CKError.make(.badDatabase, "record zone changes cannot be fetched in the public database")
                }
                // One batch of the zone the delivered callbacks say is next, from the last token
                // delivered for it (a resumed long-lived operation continues where it stopped).
                // A zone listed twice is fetched once: its results and token are per zone.
                var seen = Set<CKRecordZone.ID>()
                let zones = (recordZoneIDs ?? []).filter { seen.insert($0).inserted }
                guard delivery.zoneIndex < zones.count else { return .deliver([.finished(nil)]) }
                if let error = cancellationError { throw error }
                let zoneID = zones[delivery.zoneIndex]
                let isLastZone = delivery.zoneIndex == zones.count - 1
                var (token, limit, desiredKeys) = settings(for: zoneID)
                if let resume = delivery.resumeToken { token = resume }
                let batch: ZoneChangesBatch
                do {
                    if let taken = readAhead.take(zoneID: zoneID, token: token) {
                        batch = try taken.get()
                    } else {
                        batch = try service.fetchZoneChanges(
                            zoneID, since: token, limit: limit, desiredKeys: desiredKeys)
                    }
                } catch {
                    let failure = Event.zoneFinished(zoneID, .failure(CKError.fromStore(error)))
                    return .deliver(isLastZone ? [failure, .finished(nil)] : [failure])
                }
                if batch.moreComing && fetchAllChanges {
                    // The next batch is read while this one is delivered (decision 0009).
                    readAhead.start(
                        service, zoneID: zoneID, token: batch.token, limit: limit, desiredKeys: desiredKeys,
                        qos: dispatchQoS.qosClass, operationID: operationID)
                }
                var events: [Event] = batch.changes.map { change in
                    switch change {
                    case .changed(let record): return .changed(record)
                    case .deleted(let id, let type): return .deleted(id, type)
                    }
                }
                if batch.moreComing && fetchAllChanges {
                    events.append(.tokensUpdated(zoneID, batch.token, batch.clientChangeTokenData))
                } else {
                    events.append(
                        .zoneFinished(zoneID, .success((batch.token, batch.clientChangeTokenData, batch.moreComing))))
                    if isLastZone { events.append(.finished(nil)) }
                }
                return .deliver(events)
            })
    }

    /// Where the delivered callbacks left the operation, and what its final blocks report.
    private struct Delivery {
        /// The index in `recordZoneIDs` of the zone being fetched.
        var zoneIndex = 0
        /// The last token delivered for that zone, if any.
        var resumeToken: CKServerChangeToken?
        var partial: [AnyHashable: CKError] = [:]
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ delivery: inout Delivery) {
        switch event {
        case .changed(let record):
            if let block = recordWasChangedBlock {
                block(record.recordID, .success(record))
            } else {
                legacyRecordChangedBlock?(record)
            }
        case .deleted(let id, let type):
            recordWithIDWasDeletedBlock?(id, type)
        case .tokensUpdated(let zoneID, let token, let data):
            delivery.resumeToken = token
            recordZoneChangeTokensUpdatedBlock?(zoneID, token, data)
        case .zoneFinished(let zoneID, .success(let (token, data, moreComing))):
            delivery.zoneIndex += 1
            delivery.resumeToken = nil
            recordZoneFetchResultBlock?(
                zoneID, .success((serverChangeToken: token, clientChangeTokenData: data, moreComing: moreComing)))
            legacyRecordZoneFetchCompletionBlock?(zoneID, token, data, moreComing, nil)
        case .zoneFinished(let zoneID, .failure(let error)):
            delivery.zoneIndex += 1
            delivery.resumeToken = nil
            delivery.partial[zoneID] = error
            recordZoneFetchResultBlock?(zoneID, .failure(error))
            legacyRecordZoneFetchCompletionBlock?(zoneID, nil, nil, false, error)
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            readAhead.finish()
            fetchRecordZoneChangesResultBlock?(.success(()))
            legacyFetchRecordZoneChangesCompletionBlock?(
                delivery.partial.isEmpty
                    ? nil
                    : CKError.make(
                        .partialFailure, "Failed to fetch changes of some zones",
                        userInfo: [CKPartialErrorsByItemIDKey: delivery.partial]))
        }
    }

    override func deliverCompletion(error: CKError) {
        readAhead.finish()
        fetchRecordZoneChangesResultBlock?(.failure(error))
        legacyFetchRecordZoneChangesCompletionBlock?(error)
    }
}
