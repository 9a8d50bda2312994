import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify` over the engine's
/// subscriptions: the caller's own, one dictionary per requested item in request order.
enum SubscriptionEndpoints {
    static let list = DatabaseOperation(
        name: "subscriptions/list", methods: [.get, .post], writes: false, handle: handleList)
    static let lookup = DatabaseOperation(
        name: "subscriptions/lookup", methods: [.post], writes: false, handle: handleLookup)
    static let modify = DatabaseOperation(
        name: "subscriptions/modify", methods: [.post], writes: true, handle: handleModify)

    static func handleList(_ call: DatabaseCall) async throws -> Response {
        let found = try await call.withSubscriptions { database in try database.fetchSubscriptions(nil) }
        return call.respond(["subscriptions": .array(found.map { answer($0.0, $0.1, call: call) })])
    }

    static func handleLookup(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(SubscriptionsLookupRequest.self)
        try checkCount(body.subscriptions.count, of: "subscriptions")
        let ids = body.subscriptions.map(\.subscriptionID)
        let found = try await call.withSubscriptions { database in try database.fetchSubscriptions(ids) }
        var byID: [String: Result<CKSubscription, CKError>] = [:]
        for (id, result) in found { byID[id] = result }
        return call.respond([
            "subscriptions": .array(ids.map { answer($0, byID[$0] ?? .failure(CKError(.internalError)), call: call) })
        ])
    }

    static func handleModify(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(SubscriptionsModifyRequest.self)
        try checkCount(body.operations.count, of: "operations")
        let plan = try SubscriptionsModifyPlan(body, translator: WSSubscriptionTranslator(translator: call.translator))
        let (saving, deleting) = (plan.saving, plan.deleting)
        let (saved, deleted) = try await call.withSubscriptions { database in
            try database.modifySubscriptions(saving: saving, deleting: deleting)
        }
        let answers: [JSONValue] = plan.slots.map { slot -> JSONValue in
            switch slot {
            case .save(let i): return answer(saved[i].0, saved[i].1, call: call)
            case .delete(let i):
                let (id, result) = deleted[i]
                switch result {
                case .success: return ["subscriptionID": .string(id), "deleted": true]
                case .failure(let error): return errorDictionary(error, id: id, call: call)
                }
            }
        }
        return call.respond(["subscriptions": .array(answers)])
    }

    private static func checkCount(_ count: Int, of name: String) throws(ServerError) {
        guard count <= 400 else {
            throw .badRequest("the request has \(count) \(name); the limit is 400", stratusErrorCode: "limitExceeded")
        }
    }

    /// A subscription dictionary, or the subscription's error dictionary.
    static func answer(_ id: String, _ result: Result<CKSubscription, CKError>, call: DatabaseCall) -> JSONValue {
        switch result {
        case .success(let subscription):
            return WSSubscriptionTranslator(translator: call.translator).dictionary(for: subscription)
        case .failure(let error): return errorDictionary(error, id: id, call: call)
        }
    }

    /// `{subscriptionID, serverErrorCode, reason, uuid, stratusErrorCode, retryAfter?}`.
    static func errorDictionary(_ error: CKError, id: String, call: DatabaseCall) -> JSONValue {
        var members = WSErrorWriter.members(
            for: error, uuid: call.requestID, hiddenReason: "the server failed on this item")
        members["subscriptionID"] = .string(id)
        return .object(members)
    }
}
