import Foundation

/// Runs a query and returns one page of matching records, with a cursor when more remain.
open class CKQueryOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Let the server choose the page size.
    public static let maximumResults = 0

    /// The query; ignored when `cursor` is set.
    ///
    /// Setting it stores a copy, as Apple's `@NSCopying` property does (the attribute copies
    /// nothing on Linux): changing the query's sort descriptors afterwards leaves the operation
    /// as it was.
    public var query: CKQuery? {
        get { storedQuery }
        set { storedQuery = newValue.flatMap { $0.copy() as? CKQuery } }
    }
    private var storedQuery: CKQuery?
    /// Where to continue a previous query.
    public var cursor: Cursor?
    /// The zone to search; `nil` searches every zone of the private database. Ignored when
    /// `cursor` is set.
    public var zoneID: CKRecordZone.ID?
    /// The most records to return (`maximumResults` lets the server choose).
    public var resultsLimit: Int = CKQueryOperation.maximumResults
    /// The fields to fetch; `nil` for all, `[]` for system fields only.
    public var desiredKeys: [CKRecord.FieldKey]?

    /// Called once per matching record, in sort order.
    public var recordMatchedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Called once at the end with the cursor (`nil` when no more results) or the error.
    public var queryResultBlock: ((Result<Cursor?, any Error>) -> Void)?
    /// Deprecated in CloudKit: called per record; ignored when `recordMatchedBlock` is set.
    @available(macOS, deprecated: 12.0, message: "Use recordMatchedBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use recordMatchedBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use recordMatchedBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use recordMatchedBlock instead")
    public var recordFetchedBlock: ((CKRecord) -> Void)? {
        get { legacyRecordFetchedBlock }
        set { legacyRecordFetchedBlock = newValue }
    }
    /// The storage of `recordFetchedBlock`, which the operation reads without the deprecation.
    var legacyRecordFetchedBlock: ((CKRecord) -> Void)?
    /// Deprecated in CloudKit: called once at the end.
    @available(macOS, deprecated: 12.0, message: "Use queryResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use queryResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use queryResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use queryResultBlock instead")
    public var queryCompletionBlock: ((Cursor?, (any Error)?) -> Void)? {
        get { legacyQueryCompletionBlock }
        set { legacyQueryCompletionBlock = newValue }
    }
    /// The storage of `queryCompletionBlock`, which the operation reads without the deprecation.
    var legacyQueryCompletionBlock: ((Cursor?, (any Error)?) -> Void)?
    /// An operation with no query.
    public override init() {
        super.init()
    }

    /// An operation running `query`.
    public convenience init(query: CKQuery) {
        self.init()
        self.query = query
    }

    /// An operation continuing from `cursor`.
    public convenience init(cursor: Cursor) {
        self.init()
        self.cursor = cursor
    }

    override func performOperation() {
        run(
            Event.self, deliver: { self.deliver($0) },
            work: { service, _ in
                if let error = cancellationError { throw error }
                let query: CKQuery
                let zone: CKRecordZone.ID?
                if let cursor {
                    query = cursor.query
                    zone = cursor.zoneID
                } else if let own = self.query {
                    query = own
                    zone = zoneID ?? (service.scope == .public ? .default : nil)
                } else {
                    throw CKError.make(.invalidArguments, "a query operation needs a query or a cursor")
                }
                let page = try service.query(
                    query, zoneID: zone, cursor: cursor?.data, limit: resultsLimit, desiredKeys: desiredKeys)
                let next = page.cursor.map { Cursor(data: $0, query: query, zoneID: zone) }
                return .deliver(page.records.map { Event.matched($0) } + [.finished(.success(next))])
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event) {
        switch event {
        case .matched(let record):
            if let block = recordMatchedBlock {
                block(record.recordID, .success(record))
            } else {
                legacyRecordFetchedBlock?(record)
            }
        case .finished(.success(let next)):
            queryResultBlock?(.success(next))
            legacyQueryCompletionBlock?(next, nil)
        case .finished(.failure(let error)):
            deliverCompletion(error: error)
        }
    }

    override func deliverCompletion(error: CKError) {
        queryResultBlock?(.failure(error))
        legacyQueryCompletionBlock?(nil, error)
    }
}
