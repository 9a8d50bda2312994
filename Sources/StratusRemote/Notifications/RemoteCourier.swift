import Foundation
import Stratus

/// One container object's courier token (decision 0016.7): made by `tokens/create` when its
/// first notification sequence first polls, then kept for the container's life and shared by
/// every sequence of it. A token the server no longer knows (more than 20 of the user's, or
/// unused for 30 days: decision 0014.4) is forgotten and replaced by a new one.
actor RemoteCourier {
    private var exchange: RemoteCourierExchange?
    private var token: String?
    /// The `tokens/create` in flight, which concurrent sequences wait for rather than each
    /// making a token.
    private var making: Task<Result<String, CKError>, Never>?

    /// The courier token, made with `exchange` when there is none.
    ///
    /// - Throws: `notAuthenticated` for refused or anonymous credentials; a transport error.
    func token(using exchange: RemoteCourierExchange) async throws(CKError) -> String {
        if let token { return token }
        let task =
            making
            ?? Task {
                await Result(asyncCatching: { () async throws(CKError) -> String in try await exchange.createToken() })
            }
        making = task
        let made = await task.value
        if making == task { making = nil }
        let token = try made.get()
        self.token = token
        return token
    }

    /// Forgets `token`, which the server refused: the next poll makes a new one.
    func forget(_ token: String) {
        if self.token == token { self.token = nil }
    }

    /// The exchange of `container`'s server, found from its remote service once.
    ///
    /// - Returns: `nil` when the task was cancelled meanwhile.
    /// - Throws: `internalError` for a container that is not remote (notifications need a
    ///   server); the error of the container's first request (`users/caller`) otherwise.
    func exchange(of container: CKContainer) async throws(CKError) -> RemoteCourierExchange? {
        if let exchange { return exchange }
        let found = await RemoteBlockingCall<Result<any DatabaseService, CKError>>.run {
            Result { () throws(CKError) -> any DatabaseService in
                do {
                    return try container.privateCloudDatabase.service()
                } catch let error as CKError {
                    throw error
                } catch {
                    throw RemoteFailure.error(.internalError, "the container's database cannot be reached: \(error)")
                }
            }
        }
        guard let found else { return nil }
        guard let remote = try found.get() as? RemoteDatabaseService else {
            throw RemoteFailure.error(
                .internalError,
                "notifications need a server: container '\(container.containerIdentifier ?? "")' is embedded, and an embedded engine keeps no notification log; make the container with CKContainer(identifier:server:)"
            )
        }
        let made = RemoteCourierExchange(
            server: remote.transport.server, containerIdentifier: remote.transport.containerIdentifier)
        exchange = made
        return made
    }
}
