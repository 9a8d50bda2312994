import Foundation

/// Fetches subscriptions by ID, or every subscription of the database.
///
/// A subscription that does not exist fails with `unknownItem`; an ID listed twice is answered
/// once.
open class CKFetchSubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// The IDs of the subscriptions to fetch; `nil` (as set by
    /// `fetchAllSubscriptionsOperation()`) fetches every subscription.
    public var subscriptionIDs: [CKSubscription.ID]?

    /// Called once per subscription with the subscription or the reason it could not be fetched.
    public var perSubscriptionResultBlock: (@Sendable (CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-subscription errors go
    /// to `perSubscriptionResultBlock`).
    public var fetchSubscriptionsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the fetched subscriptions by ID, and
    /// `partialFailure` (per-subscription errors under `CKPartialErrorsByItemIDKey`) when some
    /// could not be fetched.
    public var fetchSubscriptionCompletionBlock:
        (@Sendable ([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)?

    /// An operation that fetches every subscription (the same as
    /// `fetchAllSubscriptionsOperation()`) unless `subscriptionIDs` is set.
    public required override init() {
        super.init()
    }

    /// An operation that fetches the subscriptions with `subscriptionIDs`.
    public convenience init(subscriptionIDs: [CKSubscription.ID]) {
        self.init()
        self.subscriptionIDs = subscriptionIDs
    }

    /// An operation that fetches every subscription of the database.
    public class func fetchAllSubscriptionsOperation() -> Self {
        Self()
    }

    override func performOperation() {
        let results: [(CKSubscription.ID, Result<CKSubscription, CKError>)]
        do {
            let context = try databaseContext()
            if let error = cancellationError { throw error }
            results = try context.fetchSubscriptions(subscriptionIDs)
        } catch {
            deliverCompletion(error: CKError.fromStore(error))
            return
        }
        var fetched: [CKSubscription.ID: CKSubscription] = [:]
        var partial: [AnyHashable: CKError] = [:]
        for (id, result) in results {
            switch result {
            case .success(let subscription):
                fetched[id] = subscription
                perSubscriptionResultBlock?(id, .success(subscription))
            case .failure(let error):
                partial[id] = error
                perSubscriptionResultBlock?(id, .failure(error))
            }
        }
        fetchSubscriptionsResultBlock?(.success(()))
        let error: CKError? =
            partial.isEmpty
            ? nil
            : .make(
                .partialFailure, "Failed to fetch some subscriptions (\(partial.count) of \(results.count))",
                userInfo: [CKPartialErrorsByItemIDKey: partial])
        fetchSubscriptionCompletionBlock?(fetched, error)
    }

    override func deliverCompletion(error: CKError) {
        fetchSubscriptionsResultBlock?(.failure(error))
        fetchSubscriptionCompletionBlock?(nil, error)
    }
}
