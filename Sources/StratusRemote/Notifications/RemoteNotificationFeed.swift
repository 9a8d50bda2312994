import Foundation
import Stratus

/// The state of one notification sequence (decision 0016.7): the entries received and not yet
/// handed to the consumer, the last position handed out, and the long-poll loop that refills
/// them.
///
/// A position is acknowledged (`after=` on the next poll) only once the consumer asked for the
/// element after it, so an element being handled when the process dies comes again; a position
/// at or below one already queued is dropped, so none repeats within a sequence.
actor RemoteNotificationFeed {
    /// A notification waiting for the consumer, with its log position (`nil`: a reset).
    private struct Pending {
        var position: Int64?
        var notification: CKNotification?
    }

    /// What one poll came to.
    private enum Outcome {
        case more
        case cancelled
        case ended(CKError)
    }

    /// The most entries one poll asks for, and how long the server may hold it (seconds).
    static let pollLimit = 100
    static let pollTimeout = 25

    private let container: CKContainer
    private let courier: RemoteCourier
    private var pending: [Pending] = []
    /// The last position handed to the consumer: what the next poll acknowledges.
    private var handed: Int64?
    /// The newest position queued: older ones are duplicates.
    private var newest: Int64 = 0
    /// Whether a reset was queued since the last entry (one reset per gap, not one per poll).
    private var resetQueued = false
    private var backoff = RemoteNotificationBackoff()
    private var finished = false

    init(container: CKContainer, courier: RemoteCourier) {
        self.container = container
        self.courier = courier
    }

    /// The next notification; `nil` once the task is cancelled.
    ///
    /// - Throws: the `CKError` that ends the sequence: refused credentials
    ///   (`notAuthenticated`, `permissionFailure`, `badContainer`) or a container that is not
    ///   remote (`internalError`).
    func next() async throws(CKError) -> CKNotification? {
        while !finished {
            if Task.isCancelled { break }
            if !pending.isEmpty {
                let item = pending.removeFirst()
                if let position = item.position { handed = position }
                if let notification = item.notification { return notification }
                continue
            }
            switch await poll() {
            case .more: continue
            case .cancelled: finished = true
            case .ended(let error):
                finished = true
                throw error
            }
        }
        finished = true
        return nil
    }

    /// One long-poll for the entries after the last one handed out, queued; a failure is
    /// waited out unless it ends the sequence.
    private func poll() async -> Outcome {
        let found = await Result(asyncCatching: { () async throws(CKError) -> RemoteCourierExchange? in
            try await courier.exchange(of: container)
        })
        let exchange: RemoteCourierExchange
        switch found {
        case .failure(let error):
            return RemoteNotificationBackoff.isTransient(error) ? await wait(after: error) : .ended(error)
        case .success(nil):
            return .cancelled
        case .success(let resolved?):
            exchange = resolved
        }
        let made = await Result(asyncCatching: { () async throws(CKError) -> String in
            try await courier.token(using: exchange)
        })
        switch made {
        case .failure(let error):
            return RemoteNotificationBackoff.ends(error) ? .ended(error) : await wait(after: error)
        case .success(let token):
            return await poll(exchange, token: token)
        }
    }

    /// The long-poll itself, with `token`.
    private func poll(_ exchange: RemoteCourierExchange, token: String) async -> Outcome {
        let started = ContinuousClock.now
        let answer = await Result(asyncCatching: { () async throws(CKError) -> RemoteNotificationPage in
            let json = try await exchange.poll(
                token: token, after: handed, limit: Self.pollLimit, timeout: Self.pollTimeout)
            return try RemoteNotificationPage(json)
        })
        if Task.isCancelled { return .cancelled }
        switch answer {
        case .failure(let error):
            // The courier URL carries no credentials: a refusal means the server forgot the
            // token (evicted, idle, or a new store); the next poll makes another.
            if error.code == .notAuthenticated { await courier.forget(token) }
            return await wait(after: error)
        case .success(let page):
            backoff.reset()
            let queued = queue(page, containerIdentifier: exchange.containerIdentifier)
            // An answer with nothing new well before its timeout (a server shutting down, a
            // reset with nothing after it) is not polled again at once.
            let early = ContinuousClock.now - started < .seconds(Self.pollTimeout / 5)
            return queued || !early ? .more : await wait(after: nil)
        }
    }

    /// Queues `page`'s new entries after a reset notification when it asks for one; whether
    /// anything was queued.
    private func queue(_ page: RemoteNotificationPage, containerIdentifier: String) -> Bool {
        var queued = false
        if page.resetRequired && !resetQueued {
            pending.append(
                Pending(
                    position: nil,
                    notification: RemoteNotificationPage.resetNotification(containerIdentifier: containerIdentifier)))
            resetQueued = true
            queued = true
        }
        for entry in page.entries where entry.position > max(newest, handed ?? 0) {
            pending.append(Pending(position: entry.position, notification: entry.notification))
            newest = entry.position
            resetQueued = false
            queued = true
        }
        return queued
    }

    /// Waits out a failure (or an early answer); `.cancelled` when the task was cancelled.
    private func wait(after error: CKError?) async -> Outcome {
        await RemoteNotificationBackoff.sleep(backoff.delay(after: error)) ? .more : .cancelled
    }
}
