public import Foundation
import Synchronization

/// One of a container's databases: public, private or shared.
public final class CKDatabase: NSObject, @unchecked Sendable {
    /// The database's scope.
    public let databaseScope: Scope
    /// The container the database belongs to.
    let container: CKContainer
    private let resolved = Mutex<Result<DatabaseContext, CKError>?>(nil)
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

    /// The engine's view of this database.
    func context() throws -> DatabaseContext {
        if let result = resolved.withLock({ $0 }) { return try result.get() }
        let result: Result<DatabaseContext, CKError>
        do {
            let engine = try container.engine.get()
            result = .success(try engine.database(container: container.containerIdentifier ?? "", scope: databaseScope))
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
