internal import Stratus
internal import StratusWebServices

/// The engine's view of a `subscriptions/modify` body: what to save, what to delete, and
/// where each operation went. `create` and `update` are both saves (the engine replaces a
/// subscription saved under an existing ID, as `CKModifySubscriptionsOperation` does).
struct SubscriptionsModifyPlan {
    /// Where an operation went.
    enum Slot {
        case save(Int)
        case delete(Int)
    }

    var saving: [CKSubscription] = []
    var deleting: [CKSubscription.ID] = []
    var slots: [Slot] = []

    /// - Throws: 400 `BAD_REQUEST` naming the operation and the key at fault.
    init(_ body: SubscriptionsModifyRequest, translator: WSSubscriptionTranslator) throws(ServerError) {
        for (index, operation) in body.operations.enumerated() {
            let path = "operations[\(index)].subscription"
            switch operation.operationType {
            case "create", "update":
                do throws(WSTranslationError) {
                    let subscription = try translator.subscription(from: operation.subscription)
                    slots.append(.save(saving.count))
                    saving.append(subscription)
                } catch {
                    throw .badRequest(
                        "\(path)\(error.field.map { ".\($0)" } ?? ""): \(error.reason)",
                        stratusErrorCode: error.exceedsALimit ? "limitExceeded" : "invalidArguments")
                }
            case "delete":
                guard let id = operation.subscription.subscriptionID, !id.isEmpty else {
                    throw .badRequest("\(path).subscriptionID: a delete needs the subscriptionID")
                }
                slots.append(.delete(deleting.count))
                deleting.append(id)
            default:
                throw .badRequest(
                    "operations[\(index)].operationType: '\(operation.operationType)' is not create, update or delete")
            }
        }
    }
}
