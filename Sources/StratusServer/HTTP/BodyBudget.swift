import Synchronization

/// The bytes of request bodies the server holds at once, across every connection
/// (decision 0012.5): each body the routes collect is counted against it as its bytes arrive,
/// until its response is made, and a body whose next bytes would pass it is refused with 503
/// `TRY_AGAIN_LATER` and a `retryAfter`. Without it, 1,024 connections each sending a 50 MiB
/// upload would hold 50 GiB.
final class BodyBudget: Sendable {
    /// The most bytes held at once.
    let total: Int
    private let held = Mutex(0)

    init(total: Int) {
        self.total = total
    }

    /// Counts `bytes` more, or answers `false` when they would pass ``total``.
    func reserve(_ bytes: Int) -> Bool {
        held.withLock { held in
            guard bytes <= total - held else { return false }
            held += bytes
            return true
        }
    }

    /// Counts `bytes` fewer.
    func release(_ bytes: Int) {
        held.withLock { $0 -= bytes }
    }
}

/// What one request holds of the ``BodyBudget``: given to the request's task by
/// ``BodyBudgetMiddleware``, which releases it all when the response is made.
final class BodyLease: Sendable {
    /// The lease of the request the current task serves.
    @TaskLocal static var current: BodyLease?

    let budget: BodyBudget
    private let held = Mutex(0)

    init(budget: BodyBudget) {
        self.budget = budget
    }

    /// Counts `bytes` more of this request's body.
    ///
    /// - Throws: 503 `TRY_AGAIN_LATER` with `retryAfter` when the budget has no room.
    func reserve(_ bytes: Int) throws(ServerError) {
        guard budget.reserve(bytes) else {
            throw ServerError(
                .serviceUnavailable, "TRY_AGAIN_LATER",
                "the server is already reading its limit of \(budget.total) bytes of request bodies; retry",
                retryAfter: 1, stratusErrorCode: "serviceUnavailable")
        }
        held.withLock { $0 += bytes }
    }

    /// Gives back everything this request held.
    func releaseAll() {
        budget.release(
            held.withLock { held in
                defer { held = 0 }
                return held
            })
    }
}
