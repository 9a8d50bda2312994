import Foundation
import Stratus
import StratusBackend
import StratusWebServices

/// Subscriptions: `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify`.
extension RemoteDatabaseService {
    private var subscriptionTranslator: WSSubscriptionTranslator { WSSubscriptionTranslator(translator: translator) }

    func fetchSubscriptions(_ ids: [CKSubscription.ID]?) throws -> [(
        CKSubscription.ID, Result<CKSubscription, CKError>
    )] {
        let answer: JSONValue
        if let ids {
            let items: [JSONValue] = ids.map { ["subscriptionID": .string($0)] }
            answer = try post("subscriptions/lookup", ["subscriptions": .array(items)])
        } else {
            answer = try post("subscriptions/list", [:])
        }
        let items = try items("subscriptions", of: answer, "subscriptions")
        if let ids, items.count != ids.count {
            throw RemoteFailure.error(
                .serverResponseLost, "subscriptions/lookup answered \(items.count) items for \(ids.count)")
        }
        return try items.enumerated().map { index, item in
            let id = ids?[index] ?? item["subscriptionID"].flatMap { if case .string(let s) = $0 { s } else { nil } }
            return (id ?? "", try subscriptionResult(item))
        }
    }

    func modifySubscriptions(
        saving: [CKSubscription], deleting: [CKSubscription.ID],
        journal: ((SubscriptionModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> SubscriptionModifyOutcome {
        guard journal == nil else {
            throw RemoteFailure.error(.internalError, "a local long-lived journal cannot commit with a remote modify")
        }
        var operations: [JSONValue] = []
        for subscription in saving {
            operations.append([
                "operationType": "update", "subscription": subscriptionTranslator.dictionary(for: subscription),
            ])
        }
        operations += deleting.map { ["operationType": "delete", "subscription": ["subscriptionID": .string($0)]] }
        // Saving replaces and deleting twice reads `unknownItem`: sent once.
        let answer = try post("subscriptions/modify", ["operations": .array(operations)], retry: .once)
        let items = try items("subscriptions", of: answer, "subscriptions/modify")
        guard items.count == operations.count else {
            throw RemoteFailure.error(
                .serverResponseLost, "subscriptions/modify answered \(items.count) items for \(operations.count)")
        }
        var outcome: SubscriptionModifyOutcome = ([], [])
        for (subscription, item) in zip(saving, items) {
            outcome.saved.append((subscription.subscriptionID, try subscriptionResult(item)))
        }
        for (id, item) in zip(deleting, items.dropFirst(saving.count)) {
            outcome.deleted.append((id, isError(item) ? .failure(itemError(item)) : .success(())))
        }
        return outcome
    }

    /// A subscription item of an answer: the subscription, or its error.
    private func subscriptionResult(_ item: JSONValue) throws -> Result<CKSubscription, CKError> {
        if isError(item) { return .failure(itemError(item)) }
        do {
            return .success(try subscriptionTranslator.subscription(from: item))
        } catch {
            throw malformed("subscriptions", error)
        }
    }
}
