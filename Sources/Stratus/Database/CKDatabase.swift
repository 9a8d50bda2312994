public import Foundation
import Synchronization

/// One of a container's databases: public, private or shared.
public final class CKDatabase: NSObject, @unchecked Sendable {
    /// The database's scope.
    public let databaseScope: Scope
    /// The container the database belongs to.
    let container: CKContainer
    private let resolved = Mutex<Result<DatabaseContext, CKError>?>(nil)
    /// The service made by the container's ``CKContainer/useDatabaseService(_:)`` factory.
    private let madeService = Mutex<(any DatabaseService)?>(nil)
    /// Where `add(_:)` runs operations.
    let operationQueue: OperationQueue

    init(container: CKContainer, scope: Scope) {
        self.container = container
        self.databaseScope = scope
        self.operationQueue = OperationQueue()
        self.operationQueue.name = "stratus.database.\(scope)"
    }

    /// Runs `operation` against this database.
    public func add(_ operation: CKDatabaseOperation) {
        operation.database = self
        operationQueue.addOperation(operation)
    }

    /// Where the operation layer sends this database's requests (decision 0016): the
    /// container's own engine, or the service its registered factory makes.
    package func service() throws -> any DatabaseService {
        guard let factory = container.databaseServiceFactory else { return try context() }
        if let existing = madeService.withLock({ $0 }) { return existing }
        let made = try factory(self)
        return madeService.withLock { service in
            if let service { return service }
            service = made
            return made
        }
    }

    /// The local engine's view of this database, for a feature only a local engine has
    /// (decision 0016: the long-lived journal); fails with
    /// `internalError` naming `feature` when the database's service has none.
    func localContext(for feature: String) throws -> DatabaseContext {
        guard let context = try service().localContext else {
            throw CKError.make(.internalError, "\(feature) needs a local engine; this container's database has none")
        }
        return context
    }

    /// The container's own engine's view of this database (what ``service()`` returns when no
    /// service factory is registered).
    package func context() throws -> DatabaseContext {
        if let result = resolved.withLock({ $0 }) { return try result.get() }
        let result: Result<DatabaseContext, CKError>
        do {
            let engine = try container.engine.get()
            result = .success(
                try engine.database(
                    container: container.containerIdentifier ?? "", scope: databaseScope,
                    environment: container.environment))
        } catch let error as CKError {
            result = .failure(error)
        } catch {
            result = .failure(CKError.fromStore(error))
        }
        // A transient store failure is not remembered; the next call tries again.
        if case .success = result { resolved.withLock { $0 = result } }
        return try result.get()
    }

    public override var description: String { "<CKDatabase: \(databaseScope)>" }
}
