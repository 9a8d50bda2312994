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
    public var perSubscriptionResultBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-subscription errors go
    /// to `perSubscriptionResultBlock`).
    public var fetchSubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the fetched subscriptions by ID, and
    /// `partialFailure` (per-subscription errors under `CKPartialErrorsByItemIDKey`) when some
    /// could not be fetched.
    @available(macOS, deprecated: 12.0, message: "Use fetchSubscriptionsResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use fetchSubscriptionsResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use fetchSubscriptionsResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use fetchSubscriptionsResultBlock instead")
    public var fetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)? {
        get { legacyFetchSubscriptionCompletionBlock }
        set { legacyFetchSubscriptionCompletionBlock = newValue }
    }
    /// The storage of `fetchSubscriptionCompletionBlock`, which the operation reads without the deprecation.
    var legacyFetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)?
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
        var delivery = ItemFetchDelivery<CKSubscription.ID, CKSubscription>()
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { service, _ in
                if let error = cancellationError { throw error }
                let results = try service.fetchSubscriptions(subscriptionIDs)
                return .deliver(results.map { Event.item($0, $1) } + [.finished(nil)])
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ delivery: inout ItemFetchDelivery<CKSubscription.ID, CKSubscription>) {
        switch event {
        case .item(let id, let result):
            delivery.add(id, result)
            perSubscriptionResultBlock?(id, result.mapError { $0 })
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            fetchSubscriptionsResultBlock?(.success(()))
            let error = delivery.partialFailure(fetching: "subscriptions")
            legacyFetchSubscriptionCompletionBlock?(delivery.fetched, error)
        }
    }

    override func deliverCompletion(error: CKError) {
        fetchSubscriptionsResultBlock?(.failure(error))
        legacyFetchSubscriptionCompletionBlock?(nil, error)
    }
}
