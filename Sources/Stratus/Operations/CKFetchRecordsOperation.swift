import Foundation

/// Fetches records by ID, each with its own result, from one snapshot of the store — or, when
/// the records hold more than 16 MiB of fields, from one snapshot per part: the engine refuses
/// such a fetch and the operation asks again for fewer (`FetchRecordsParts`), delivering (and,
/// when long-lived, journaling) each part as it comes.
///
/// A record that does not exist fails with `unknownItem`; a record in a zone that does not
/// exist fails with `zoneNotFound`. An ID listed twice is answered once. More than 400 IDs fail
/// the whole request with `limitExceeded`.
open class CKFetchRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// The IDs of the records to fetch.
    public var recordIDs: [CKRecord.ID]?
    /// The fields to fetch: `nil` (the default) for every field, `[]` for the system fields only.
    public var desiredKeys: [CKRecord.FieldKey]?

    /// Reports download progress of a record: once with 1.0 per record in Stratus, before its
    /// result.
    public var perRecordProgressBlock: ((CKRecord.ID, Double) -> Void)?
    /// Called once per requested record ID with the record or the reason it could not be fetched.
    public var perRecordResultBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-record errors go to
    /// `perRecordResultBlock`).
    public var fetchRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once per record with the record or its error; ignored when
    /// `perRecordResultBlock` is set.
    @available(macOS, deprecated: 12.0, message: "Use perRecordResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use perRecordResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use perRecordResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use perRecordResultBlock instead")
    public var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)? {
        get { legacyPerRecordCompletionBlock }
        set { legacyPerRecordCompletionBlock = newValue }
    }
    /// The storage of `perRecordCompletionBlock`, which the operation reads without the deprecation.
    var legacyPerRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the fetched records by ID, and
    /// `partialFailure` (per-record errors under `CKPartialErrorsByItemIDKey`) when some records
    /// could not be fetched.
    @available(macOS, deprecated: 12.0, message: "Use fetchRecordsResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use fetchRecordsResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use fetchRecordsResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use fetchRecordsResultBlock instead")
    public var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)? {
        get { legacyFetchRecordsCompletionBlock }
        set { legacyFetchRecordsCompletionBlock = newValue }
    }
    /// The storage of `fetchRecordsCompletionBlock`, which the operation reads without the deprecation.
    var legacyFetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)?
    /// Whether this operation was made by `fetchCurrentUserRecordOperation()`.
    var fetchesCurrentUserRecord = false

    /// An empty fetch operation.
    public required override init() {
        super.init()
    }

    /// An operation that fetches the records with `recordIDs`.
    public convenience init(recordIDs: [CKRecord.ID]) {
        self.init()
        self.recordIDs = recordIDs
    }

    /// An operation that fetches the current user's record.
    ///
    /// Stratus has a single local user and stores no user records, so the operation answers
    /// `unknownItem` for the user record (keyed by the ID in `recordIDs`,
    /// `CKRecord.ID(recordName: CKCurrentUserDefaultName)`). Use `CKContainer.userRecordID()`
    /// for the user's record ID.
    public class func fetchCurrentUserRecordOperation() -> Self {
        let operation = Self()
        operation.recordIDs = [CKRecord.ID(recordName: CKCurrentUserDefaultName)]
        operation.fetchesCurrentUserRecord = true
        return operation
    }

    override func performOperation() {
        var delivery = ItemFetchDelivery<CKRecord.ID, CKRecord>()
        var parts = FetchRecordsParts(recordIDs ?? [], desiredKeys: desiredKeys)
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { service, _ in
                if let error = cancellationError { throw error }
                if fetchesCurrentUserRecord {
                    var seen = Set<CKRecord.ID>()
                    let results = (recordIDs ?? []).filter { seen.insert($0).inserted }.map { id in
                        let message = "Record '\(id.recordName)' does not exist: Stratus stores no user records"
                        return Event.item(id, .failure(.make(.unknownItem, message)))
                    }
                    return .deliver(results + [.finished(nil)])
                }
                // The next part after the results delivered (a resumed long-lived operation
                // continues where it stopped); each part is journaled and delivered on its own.
                let start = delivery.count
                let results = try parts.next(after: start, from: service, cancelled: { self.cancellationError })
                let last = start + results.count >= parts.count
                return .deliver(results.map { Event.item($0, $1) } + (last ? [.finished(nil)] : []))
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ delivery: inout ItemFetchDelivery<CKRecord.ID, CKRecord>) {
        switch event {
        case .item(let id, let result):
            delivery.add(id, result)
            perRecordProgressBlock?(id, 1.0)
            switch result {
            case .success(let record):
                if let block = perRecordResultBlock {
                    block(id, .success(record))
                } else {
                    legacyPerRecordCompletionBlock?(record, id, nil)
                }
            case .failure(let error):
                if let block = perRecordResultBlock {
                    block(id, .failure(error))
                } else {
                    legacyPerRecordCompletionBlock?(nil, id, error)
                }
            }
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            fetchRecordsResultBlock?(.success(()))
            let error = delivery.partialFailure(fetching: "records")
            legacyFetchRecordsCompletionBlock?(delivery.fetched, error)
        }
    }

    override func deliverCompletion(error: CKError) {
        fetchRecordsResultBlock?(.failure(error))
        legacyFetchRecordsCompletionBlock?(nil, error)
    }
}
