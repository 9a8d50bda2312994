internal import StratusWebServices

/// The body of `subscriptions/modify`.
struct SubscriptionsModifyRequest: Decodable, Sendable {
    /// One operation: `create`, `update` or `delete`.
    struct Operation: Decodable, Sendable {
        var operationType: String
        var subscription: WSSubscriptionDictionary
    }

    var operations: [Operation]
}

/// The body of `subscriptions/lookup`.
struct SubscriptionsLookupRequest: Decodable, Sendable {
    /// `{subscriptionID}`.
    struct Item: Decodable, Sendable {
        var subscriptionID: String
    }

    var subscriptions: [Item]
}
