import Foundation

/// Saves and deletes subscriptions in one request (one backend transaction).
///
/// Saving a subscription whose ID exists replaces it; deleting one that does not exist fails
/// with `unknownItem`; a subscription ID listed twice fails the whole request with
/// `invalidArguments`. Which database accepts which subscription type is described on each
/// subscription class. Stratus stores subscriptions but does not deliver notifications yet.
open class CKModifySubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// The subscriptions to save.
    public var subscriptionsToSave: [CKSubscription]?
    /// The IDs of the subscriptions to delete.
    public var subscriptionIDsToDelete: [CKSubscription.ID]?

    /// Called once per subscription to save, with the subscription as stored or its error.
    public var perSubscriptionSaveBlock: (@Sendable (CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    /// Called once per subscription to delete, with its outcome.
    public var perSubscriptionDeleteBlock: (@Sendable (CKSubscription.ID, Result<Void, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-subscription errors go
    /// to the per-subscription blocks).
    public var modifySubscriptionsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the saved subscriptions, the deleted
    /// IDs, and `partialFailure` (per-subscription errors under `CKPartialErrorsByItemIDKey`)
    /// when some items failed.
    public var modifySubscriptionsCompletionBlock:
        (@Sendable ([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)?

    /// An empty modify-subscriptions operation.
    public override init() {
        super.init()
    }

    /// An operation that saves `subscriptionsToSave` and deletes `subscriptionIDsToDelete`.
    public convenience init(
        subscriptionsToSave: [CKSubscription]? = nil, subscriptionIDsToDelete: [CKSubscription.ID]? = nil
    ) {
        self.init()
        self.subscriptionsToSave = subscriptionsToSave
        self.subscriptionIDsToDelete = subscriptionIDsToDelete
    }

    override func performOperation() {
        let outcome:
            (
                saved: [(CKSubscription.ID, Result<CKSubscription, CKError>)],
                deleted: [(CKSubscription.ID, Result<Void, CKError>)]
            )
        do {
            let context = try databaseContext()
            if let error = cancellationError { throw error }
            outcome = try context.modifySubscriptions(
                saving: subscriptionsToSave ?? [], deleting: subscriptionIDsToDelete ?? [])
        } catch {
            deliverCompletion(error: CKError.fromStore(error))
            return
        }
        var saved: [CKSubscription] = []
        var deleted: [CKSubscription.ID] = []
        var partial: [AnyHashable: CKError] = [:]
        for (id, result) in outcome.saved {
            switch result {
            case .success(let subscription):
                saved.append(subscription)
                perSubscriptionSaveBlock?(id, .success(subscription))
            case .failure(let error):
                partial[id] = error
                perSubscriptionSaveBlock?(id, .failure(error))
            }
        }
        for (id, result) in outcome.deleted {
            switch result {
            case .success:
                deleted.append(id)
                perSubscriptionDeleteBlock?(id, .success(()))
            case .failure(let error):
                partial[id] = error
                perSubscriptionDeleteBlock?(id, .failure(error))
            }
        }
        modifySubscriptionsResultBlock?(.success(()))
        let error: CKError? =
            partial.isEmpty
            ? nil
            : .make(
                .partialFailure,
                "Failed to modify some subscriptions (\(partial.count) of \(outcome.saved.count + outcome.deleted.count))",
                userInfo: [CKPartialErrorsByItemIDKey: partial])
        modifySubscriptionsCompletionBlock?(saved, deleted, error)
    }

    override func deliverCompletion(error: CKError) {
        modifySubscriptionsResultBlock?(.failure(error))
        modifySubscriptionsCompletionBlock?(nil, nil, error)
    }
}
