import Foundation
import StratusBackend

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
    public var perSubscriptionSaveBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    /// Called once per subscription to delete, with its outcome.
    public var perSubscriptionDeleteBlock: ((CKSubscription.ID, Result<Void, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-subscription errors go
    /// to the per-subscription blocks).
    public var modifySubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the saved subscriptions, the deleted
    /// IDs, and `partialFailure` (per-subscription errors under `CKPartialErrorsByItemIDKey`)
    /// when some items failed.
    @available(macOS, deprecated: 12.0, message: "Use modifySubscriptionsResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use modifySubscriptionsResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use modifySubscriptionsResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use modifySubscriptionsResultBlock instead")
    public var modifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)? {
        get { legacyModifySubscriptionsCompletionBlock }
        set { legacyModifySubscriptionsCompletionBlock = newValue }
    }
    /// The storage of `modifySubscriptionsCompletionBlock`, which the operation reads without the deprecation.
    var legacyModifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)?
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
        var delivery = ModifyTally<CKSubscription, CKSubscription.ID>()
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { service, session in
                if let error = cancellationError { throw error }
                // A long-lived operation journals its callbacks in the transaction that applies it.
                let journal = session.map { session in
                    { (outcome: SubscriptionModifyOutcome, txn: any BackendWriteTransaction) throws in
                        try session.append(
                            Event.events(saved: outcome.saved, deleted: outcome.deleted).map(\.encoded), final: true,
                            in: txn)
                    }
                }
                let outcome = try service.modifySubscriptions(
                    saving: subscriptionsToSave ?? [], deleting: subscriptionIDsToDelete ?? [], journal: journal)
                let events = Event.events(saved: outcome.saved, deleted: outcome.deleted)
                return session == nil ? .deliver(events) : .journaled(events)
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ tally: inout ModifyTally<CKSubscription, CKSubscription.ID>) {
        switch event {
        case .saved(let id, let result):
            // Counted first: optional chaining would skip the count when no block is set.
            let outcome = tally.save(id, result)
            perSubscriptionSaveBlock?(id, outcome)
        case .deleted(let id, let result):
            let outcome = tally.delete(id, result)
            perSubscriptionDeleteBlock?(id, outcome)
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            modifySubscriptionsResultBlock?(.success(()))
            legacyModifySubscriptionsCompletionBlock?(
                tally.saved, tally.deleted, tally.partialFailure(items: "subscriptions"))
        }
    }

    override func deliverCompletion(error: CKError) {
        modifySubscriptionsResultBlock?(.failure(error))
        legacyModifySubscriptionsCompletionBlock?(nil, nil, error)
    }
}
