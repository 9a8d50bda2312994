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

    /// The database to run against, resolved as CloudKit does.
    var resolvedDatabase: CKDatabase {
        if let database { return database }
        let container = resolvedConfiguration.container ?? CKContainer.default()
        return container.privateCloudDatabase
    }

    /// The engine's view of the resolved database, or the error that prevents using it.
    func databaseContext() throws -> DatabaseContext {
        try resolvedDatabase.context()
    }
}
