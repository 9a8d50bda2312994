import Foundation

/// Subscription conveniences: thin wrappers over `CKFetchSubscriptionsOperation` and
/// `CKModifySubscriptionsOperation`, run on this database's queue, in async and
/// completion-handler forms. Completion handlers run on the operation's callback queue.
/// Stratus stores subscriptions but does not deliver notifications yet.
extension CKDatabase {
    // MARK: async/await

    /// Fetches the subscription with `subscriptionID`.
    ///
    /// - Throws: `unknownItem` if the subscription does not exist, or the request's failure.
    public func subscription(for subscriptionID: CKSubscription.ID) async throws -> CKSubscription {
        try await runConvenience { finish in
            fetchSubscriptionsOperation([subscriptionID]) { result in
                finish(result.flatMap { CKDatabase.item(subscriptionID, in: CKDatabase.byID($0)) })
            }
        }
    }

    /// Fetches the subscriptions with `ids`, each with its own result.
    ///
    /// - Throws: only for a request-level failure.
    public func subscriptions(
        for ids: [CKSubscription.ID]
    ) async throws -> [CKSubscription.ID: Result<CKSubscription, any Error>] {
        try await runConvenience { finish in
            fetchSubscriptionsOperation(ids) { finish($0.map(CKDatabase.byID)) }
        }
    }

    /// Fetches every subscription of the database, in subscription ID order.
    public func allSubscriptions() async throws -> [CKSubscription] {
        try await runConvenience { finish in
            fetchSubscriptionsOperation(nil) { finish($0.map(CKDatabase.successes)) }
        }
    }

    /// Saves `subscription`, replacing any subscription with the same ID.
    ///
    /// - Returns: the subscription as stored.
    /// - Throws: the subscription's error (`badDatabase`, `invalidArguments`, …) or the
    ///   request's failure.
    public func save(_ subscription: CKSubscription) async throws -> CKSubscription {
        let id = subscription.subscriptionID
        return try await runConvenience { finish in
            modifySubscriptionsOperation(saving: [subscription], deleting: []) { result in
                finish(result.flatMap { CKDatabase.item(id, in: $0.saveResults) })
            }
        }
    }

    /// Deletes the subscription with `subscriptionID`.
    ///
    /// - Returns: `subscriptionID`.
    /// - Throws: `unknownItem` if the subscription does not exist, or the request's failure.
    @discardableResult
    public func deleteSubscription(withID subscriptionID: CKSubscription.ID) async throws -> CKSubscription.ID {
        try await runConvenience { finish in
            modifySubscriptionsOperation(saving: [], deleting: [subscriptionID]) { result in
                finish(result.flatMap { CKDatabase.item(subscriptionID, in: $0.deleteResults).map { subscriptionID } })
            }
        }
    }

    /// Saves and deletes subscriptions in one request.
    ///
    /// - Returns: each subscription's outcome, by subscription ID.
    /// - Throws: only for a request-level failure.
    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID]
    ) async throws -> (
        saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>],
        deleteResults: [CKSubscription.ID: Result<Void, any Error>]
    ) {
        try await runConvenience { finish in
            modifySubscriptionsOperation(
                saving: subscriptionsToSave, deleting: subscriptionIDsToDelete, completion: finish)
        }
    }

    // MARK: Completion handlers

    /// Fetches the subscription with `subscriptionID` and passes it, or the error, to
    /// `completionHandler`.
    @preconcurrency
    public func fetch(
        withSubscriptionID subscriptionID: CKSubscription.ID,
        completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            fetchSubscriptionsOperation([subscriptionID]) { result in
                switch result.flatMap({ CKDatabase.item(subscriptionID, in: CKDatabase.byID($0)) }) {
                case .success(let subscription): completionHandler(subscription, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Fetches the subscriptions with `subscriptionIDs`, each with its own result, and passes
    /// them to `completionHandler`; the outer result fails only for a request-level failure.
    @preconcurrency
    public func fetch(
        withSubscriptionIDs subscriptionIDs: [CKSubscription.ID],
        completionHandler:
            @escaping @Sendable (
                Result<[CKSubscription.ID: Result<CKSubscription, any Error>], any Error>
            ) -> Void
    ) {
        enqueueConvenience(fetchSubscriptionsOperation(subscriptionIDs) { completionHandler($0.map(CKDatabase.byID)) })
    }

    /// Fetches every subscription of the database and passes them, or the error, to
    /// `completionHandler`.
    public func fetchAllSubscriptions(
        completionHandler: @escaping @Sendable ([CKSubscription]?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            fetchSubscriptionsOperation(nil) { result in
                switch result {
                case .success(let subscriptions): completionHandler(CKDatabase.successes(subscriptions), nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Saves `subscription` (see `save(_:)`) and passes the stored subscription, or the error,
    /// to `completionHandler`.
    public func save(
        _ subscription: CKSubscription, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void
    ) {
        let id = subscription.subscriptionID
        enqueueConvenience(
            modifySubscriptionsOperation(saving: [subscription], deleting: []) { result in
                switch result.flatMap({ CKDatabase.item(id, in: $0.saveResults) }) {
                case .success(let saved): completionHandler(saved, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Deletes the subscription with `subscriptionID` and passes its ID, or the error, to
    /// `completionHandler`.
    @preconcurrency
    public func delete(
        withSubscriptionID subscriptionID: CKSubscription.ID,
        completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            modifySubscriptionsOperation(saving: [], deleting: [subscriptionID]) { result in
                switch result.flatMap({ CKDatabase.item(subscriptionID, in: $0.deleteResults) }) {
                case .success: completionHandler(subscriptionID, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Saves and deletes subscriptions in one request and passes each item's outcome to
    /// `completionHandler`; the outer result fails only for a request-level failure.
    @preconcurrency
    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID],
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>],
                        deleteResults: [CKSubscription.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) {
        enqueueConvenience(
            modifySubscriptionsOperation(
                saving: subscriptionsToSave, deleting: subscriptionIDsToDelete, completion: completionHandler))
    }

    // MARK: Operations

    /// A fetch operation (of every subscription when `ids` is `nil`) that reports every
    /// subscription's result, in the operation's order, to `completion`.
    private func fetchSubscriptionsOperation(
        _ ids: [CKSubscription.ID]?,
        completion:
            @escaping @Sendable (
                Result<[(CKSubscription.ID, Result<CKSubscription, any Error>)], any Error>
            ) -> Void
    ) -> CKFetchSubscriptionsOperation {
        let operation = CKFetchSubscriptionsOperation()
        operation.subscriptionIDs = ids
        let results = ConvenienceBox<[(CKSubscription.ID, Result<CKSubscription, any Error>)]>([])
        operation.perSubscriptionResultBlock = { id, result in results.update { $0.append((id, result)) } }
        operation.fetchSubscriptionsResultBlock = { result in
            completion(result.map { results.value })
        }
        return operation
    }

    /// A modify operation that reports every subscription's result, by ID, to `completion`.
    private func modifySubscriptionsOperation(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID],
        completion:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>],
                        deleteResults: [CKSubscription.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) -> CKModifySubscriptionsOperation {
        let operation = CKModifySubscriptionsOperation(
            subscriptionsToSave: subscriptionsToSave, subscriptionIDsToDelete: subscriptionIDsToDelete)
        let saves = ConvenienceBox<[CKSubscription.ID: Result<CKSubscription, any Error>]>([:])
        let deletes = ConvenienceBox<[CKSubscription.ID: Result<Void, any Error>]>([:])
        operation.perSubscriptionSaveBlock = { id, result in saves.update { $0[id] = result } }
        operation.perSubscriptionDeleteBlock = { id, result in deletes.update { $0[id] = result } }
        operation.modifySubscriptionsResultBlock = { result in
            completion(result.map { (saveResults: saves.value, deleteResults: deletes.value) })
        }
        return operation
    }
}
