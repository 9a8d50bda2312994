import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
internal import Stratus

/// The steps every authenticated route takes (decision 0012.5, 0013): the credentials that
/// need no body, then the body within the limit, then a signed request's signature over it.
extension ServerState {
    /// Checks the credentials that need no body: here when the credential cache holds them
    /// (the same checks, without a hop to another thread), else on the engine's threads, as
    /// they read the store.
    func authenticate(
        container: String, environment: Namespace.Environment, _ request: Request, requestID: String
    ) async throws -> PendingAuthentication {
        let credentials = PresentedCredentials(request)
        let authenticator = self.authenticator
        do {
            if let pending = try authenticator.authenticateFromCache(
                container: container, environment: environment, credentials: credentials)
            {
                return pending
            }
        } catch {
            throw ServerError(error)
        }
        return try await executor.run(requestID: requestID) {
            do {
                return try authenticator.authenticate(
                    container: container, environment: environment, credentials: credentials)
            } catch let failure as AuthFailure {
                throw ServerError(failure)
            }
        }
    }

    /// Finishes `pending` with the body: a signed request's signature and replay guard;
    /// other requests pass unchanged.
    func verifySignature(_ pending: PendingAuthentication, body: ByteBuffer, _ request: Request, requestID: String)
        async throws -> Authentication
    {
        guard pending.needsSignature else { return pending.authentication }
        let authenticator = self.authenticator
        let bytes = Array(body.readableBytesView)
        let rawPath = request.uri.path
        return try await executor.run(requestID: requestID) {
            do {
                return try authenticator.complete(pending, body: bytes, rawPath: rawPath)
            } catch let failure as AuthFailure {
                throw ServerError(failure)
            }
        }
    }

    /// The body, refused with 413 beyond `limit` (``maximumBodyBytes`` unless given) before
    /// any of it is parsed (a chunked body has no length for ``BodyLimitMiddleware`` to check
    /// up front), and with 503 when the server's ``BodyBudget`` has no room for the next bytes:
    /// they are counted as they arrive, so a client that declares a large body and sends it
    /// slowly holds only what it sent. `what` names the body in the error's reason. A body
    /// whose connection fails while it is read is a ``ConnectionFailure``; a malformed one,
    /// Hummingbird's `HTTPParserError`.
    func collectBody(_ request: Request, limit: Int? = nil, what: String = "request body") async throws
        -> ByteBuffer
    {
        let limit = limit ?? maximumBodyBytes
        let lease = BodyLease.current
        do {
            // No capacity reserved from the declared length: memory follows the bytes counted.
            var body = ByteBuffer()
            for try await chunk in request.body {
                guard chunk.readableBytes <= limit - body.readableBytes else {
                    throw NIOTooManyBytesError(maxBytes: limit)
                }
                try lease?.reserve(chunk.readableBytes)
                body.writeImmutableBuffer(chunk)
            }
            return body
        } catch is NIOTooManyBytesError {
            throw ServerError(
                .contentTooLarge, "BAD_REQUEST", "the \(what) is larger than this server's limit of \(limit) bytes",
                stratusErrorCode: "limitExceeded")
        } catch let error as ServerError {
            throw error
        } catch let error as HTTPParserError {
            throw error  // Hummingbird answers it: 400, and the connection closed.
        } catch let error as CancellationError {
            throw error
        } catch {
            throw ConnectionFailure(underlying: error)
        }
    }
}
