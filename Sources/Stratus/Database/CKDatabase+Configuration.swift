import Foundation

extension CKDatabase {
    /// Runs `body` with a temporary configuration and group for the convenience methods it
    /// calls on this database (`record(for:)`, `save(_:)`, `allRecordZones()`, …).
    ///
    /// The operations those methods create get a copy of `configuration` and join `group`.
    /// Operations you create and add yourself are not affected, nor are calls made on other
    /// databases. Calls nest: the innermost configuration wins.
    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil, group: CKOperationGroup? = nil,
        body: @Sendable (CKDatabase) async throws -> R
    ) async rethrows -> R {
        let scope = ConvenienceScope(database: ObjectIdentifier(self), configuration: configuration, group: group)
        return try await ConvenienceScope.$current.withValue(ConvenienceScope.current + [scope]) {
            try await body(self)
        }
    }

    /// Runs `body` with a temporary configuration and group for the convenience methods it
    /// calls on this database; the synchronous form of
    /// `configuredWith(configuration:group:body:)`.
    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil, group: CKOperationGroup? = nil,
        body: (CKDatabase) throws -> R
    ) rethrows -> R {
        let scope = ConvenienceScope(database: ObjectIdentifier(self), configuration: configuration, group: group)
        return try ConvenienceScope.$current.withValue(ConvenienceScope.current + [scope]) {
            try body(self)
        }
    }

    /// Adds an operation made by a convenience method: it gets the configuration and group of
    /// the innermost enclosing `configuredWith` for this database, then runs on this
    /// database's queue.
    func enqueueConvenience(_ operation: CKDatabaseOperation) {
        if let scope = ConvenienceScope.current.last(where: { $0.database == ObjectIdentifier(self) }) {
            if let configuration = scope.configuration {
                operation.configuration = configuration.merged(over: CKOperation.Configuration())
            }
            if let group = scope.group {
                operation.group = group
            }
        }
        add(operation)
    }

    /// Runs the operation `make` builds for an async convenience method and returns what it
    /// reports through the `finish` callback `make` receives (which must be called exactly
    /// once). Cancelling the calling task cancels the operation.
    func runConvenience<Value: Sendable>(
        _ make: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> CKDatabaseOperation
    ) async throws -> Value {
        let started = ConvenienceBox<CKDatabaseOperation?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let operation = make { continuation.resume(with: $0) }
                started.update { $0 = operation }
                if Task.isCancelled { operation.cancel() }
                enqueueConvenience(operation)
            }
        } onCancel: {
            started.value?.cancel()
        }
    }
}
