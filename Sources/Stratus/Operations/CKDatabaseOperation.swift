import Foundation

/// The abstract base class of operations that act on a database.
open class CKDatabaseOperation: CKOperation, @unchecked Sendable {
    /// The database the operation runs against; when `nil`, the private database of the
    /// configured (or default) container.
    public var database: CKDatabase? {
        get { lock.withLock { _database } }
        set { lock.withLock { _database = newValue } }
    }
    private var _database: CKDatabase?

    /// Long-lived bookkeeping: the flag as read at start, a proxy's origin (decision 0006).
    let longLived = LongLivedState()

    /// The database to run against, resolved as CloudKit does. A long-lived proxy runs against
    /// the database (scope) its original operation ran against.
    var resolvedDatabase: CKDatabase {
        if let origin = longLived.origin {
            return (database?.container ?? origin.container).database(with: origin.scope)
        }
        if let database { return database }
        let container = resolvedConfiguration.container ?? CKContainer.default()
        return container.privateCloudDatabase
    }

    /// Where the resolved database's requests go (decision 0016), each bounded by the
    /// operation's `timeoutIntervalForRequest`, or the error that prevents using it. A run
    /// stratusd hosts goes to its target database.
    func databaseService() throws -> any DatabaseService {
        if let host = longLived.host { return host.target }
        return try resolvedDatabase.service().boundingRequests(to: resolvedConfiguration.timeoutIntervalForRequest)
    }

    /// Starts the operation. Whether it is long-lived is read here, once.
    open override func start() {
        longLived.captureFlag(resolvedConfiguration.isLongLived)
        super.start()
    }

    /// Cancels the operation. A long-lived proxy cancelled before it is added leaves the list
    /// of long-lived operations at once.
    open override func cancel() {
        super.cancel()
        if longLived.origin != nil && !isExecuting && !isFinished { cancelJournaledOperation() }
    }
}
