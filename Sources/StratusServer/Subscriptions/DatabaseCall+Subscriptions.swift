import Foundation
internal import Stratus

extension DatabaseCall {
    /// Runs `body` on the engine's threads with the caller's own subscriptions of this
    /// database: a subscription belongs to the user who saved it, so in the public database
    /// it lives under the user's namespace, not the shared one (decision 0012.10:
    /// `03 (n_U, 1) 40 (id)`), and other users never see it.
    ///
    /// - Throws: 421 `AUTHENTICATION_REQUIRED` for a caller without a session (a subscription
    ///   needs someone to notify).
    func withSubscriptions<T: Sendable>(_ body: @escaping @Sendable (DatabaseContext) throws -> T) async throws
        -> T
    {
        guard caller.role != .anonymous else {
            throw ServerError.authenticationRequired(
                "subscriptions belong to a user: send a ckWebAuthToken with the ckAPIToken")
        }
        let namespace = Namespace(
            container: path.container, environment: path.environment, owner: caller.userRecordName)
        let (scope, caller, engine) = (path.scope, caller, server.engine)
        return try await server.executor.run(requestID: requestID) {
            try body(try engine.database(namespace: namespace, scope: scope, caller: caller))
        }
    }
}
