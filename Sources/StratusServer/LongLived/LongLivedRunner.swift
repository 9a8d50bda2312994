import Foundation
import Logging
import ServiceLifecycle
internal import Stratus
import Synchronization

/// Runs the long-lived operations submitted to this stratusd (decision 0014.9–10) on its own
/// `OperationQueue`, against their target databases as their callers, with their callbacks
/// going to the journal only: nothing depends on the HTTP connection that submitted them.
///
/// Every running operation holds a lease (`08 01`), renewed every ``renewInterval``; leases
/// past their expiry — a process that was killed — are claimed here and their operations
/// resumed from where the journal stopped. On graceful shutdown the runner takes no more work,
/// suspends each operation at its next journal point and releases its lease, so another
/// process resumes it at once.
final class LongLivedRunner: Service, Sendable {
    /// How long a lease lasts without renewal and how often it is renewed, how leases are
    /// claimed, and how often a waiting `events` request reads the journal again.
    struct Timing: Sendable {
        var leaseDuration: Double = 30
        var renewInterval: Duration { .milliseconds(Int64(leaseDuration * 1000 / 3)) }
        /// The leases one round reads at most; the next round goes on after the last one read.
        var claimPageSize = LongLivedLeases.defaultPageSize
        /// The expired leases one round claims at most.
        var claimsPerRound = 16
        /// How many times an operation's lease may be claimed after its holder let it expire
        /// (the holder was killed, or its run failed) before the operation is finished with
        /// `internalError` instead of run again: a crash-looping operation stops after this.
        var maximumAttempts: Int64 = 5
        /// How often a waiting `events` request reads the journal again without a signal: for
        /// callbacks journaled by another stratusd on the same PostgreSQL.
        var eventsReread: Duration = .seconds(1)
    }

    let engine: Engine
    let executor: EngineExecutor
    let logger: Logger
    let timing: Timing
    /// This process's holder ID in the leases: new at every start.
    let processID = UUID().uuidString
    /// Wakes the `events` requests waiting for an operation's callbacks.
    let signals = LongLivedSignals()
    private let queue: OperationQueueBox
    private let running = Mutex<[LongLivedLease: LongLivedHost]>([:])
    private let accepting = Atomic<Bool>(true)
    /// Where the next round's claim scan starts (``LeaseClaims/cursor``).
    private let claimCursor = Mutex<[UInt8]?>(nil)

    init(engine: Engine, executor: EngineExecutor, logger: Logger, timing: Timing = Timing()) {
        self.engine = engine
        self.executor = executor
        self.logger = logger
        self.timing = timing
        self.queue = OperationQueueBox(name: "stratusd.long-lived", width: 4)
    }

    /// The expiry of a lease taken or renewed now.
    var leaseExpiry: Double { Date().timeIntervalSince1970 + timing.leaseDuration }

    /// Starts operation `lease` if this process holds its lease and is not running it yet. Runs
    /// on an engine thread (it reads the journal); an operation that is no longer running
    /// loses its lease.
    func start(_ lease: LongLivedLease) {
        let leases = LongLivedLeases(engine: engine)
        guard accepting.load(ordering: .relaxed) else {
            try? leases.release(lease, holder: processID)
            return
        }
        let journal = HostedJournal(engine: engine, number: lease.journal)
        do {
            let signals = self.signals
            guard
                let (operation, host) = try journal.runnableOperation(
                    lease.operationID, onJournal: { signals.signal(lease) })
            else {
                try leases.clear(lease)
                return
            }
            let isNew = running.withLock { running in
                guard running[lease] == nil else { return false }
                running[lease] = host
                return true
            }
            guard isNew else { return }
            operation.completionBlock = { [self] in finished(lease, journal: journal, host: host) }
            queue.add(operation)
        } catch {
            logger.error(
                "long-lived operation cannot be started; its lease is retried later",
                metadata: ["stratus.operation.id": "\(lease.operationID)", "stratus.reason": "\(error)"])
            try? leases.release(lease, holder: processID, until: leaseExpiry)
        }
    }

    /// An operation's run ended: a finished operation loses its lease; one still running (a
    /// suspended run, or a store failure) keeps it until the next claim (now when suspended).
    private func finished(_ lease: LongLivedLease, journal: HostedJournal, host: LongLivedHost) {
        _ = running.withLock { $0.removeValue(forKey: lease) }
        defer { signals.signal(lease) }
        let leases = LongLivedLeases(engine: engine)
        do {
            if let status = try journal.status(lease.operationID), status.state == .running {
                try leases.release(lease, holder: processID, until: host.isSuspended ? 0 : leaseExpiry)
            } else {
                try leases.clear(lease)
            }
        } catch {
            logger.warning(
                "long-lived operation's lease was not updated; it expires by itself",
                metadata: ["stratus.operation.id": "\(lease.operationID)", "stratus.reason": "\(error)"])
        }
    }

    /// Suspends operation `lease` here, if it runs here (it was cancelled, or another process
    /// took its lease).
    func suspend(_ lease: LongLivedLease) {
        running.withLock { $0[lease] }?.suspend()
    }

    /// Renews and claims leases every ``Timing/renewInterval`` until graceful shutdown, then
    /// suspends the running operations and waits for them to release their leases.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.round()
                try? await Task.sleep(for: self.timing.renewInterval)
            }
        }
        await stop()
    }

    /// One round: renews this process's leases (suspending the runs whose lease was taken),
    /// then claims expired ones among the next page of leases and resumes their operations —
    /// or finishes those claimed more than ``Timing/maximumAttempts`` times with an error. It
    /// runs on the executor's reserved thread, so a server refusing requests for load still
    /// keeps its leases.
    func round() async {
        let (engine, holder, expiry, timing) = (self.engine, processID, leaseExpiry, self.timing)
        let mine = running.withLock { Array($0.keys) }
        let cursor = claimCursor.withLock { $0 }
        do {
            let (lost, claims) = try await executor.runReserved(requestID: "long-lived") {
                let leases = LongLivedLeases(engine: engine)
                let lost = try leases.renew(mine, holder: holder, expiry: expiry)
                let claims = try leases.claimExpired(
                    holder: holder, now: Date().timeIntervalSince1970, expiry: expiry, limit: timing.claimsPerRound,
                    after: cursor, pageSize: timing.claimPageSize)
                return (lost, claims)
            }
            claimCursor.withLock { $0 = claims.cursor }
            for lease in lost { suspend(lease) }
            for lease in claims.leases {
                let attempts = claims.claims[lease] ?? 0
                try await executor.runReserved(requestID: "long-lived") {
                    attempts > timing.maximumAttempts ? self.abandon(lease, attempts: attempts) : self.resume(lease)
                }
            }
        } catch is CancellationError {
            // Graceful shutdown: ``run()`` stops the runs and releases the leases next.
        } catch {
            logger.warning("long-lived lease round failed", metadata: ["stratus.reason": "\(error)"])
        }
    }

    /// Starts the operation of a claimed lease again.
    private func resume(_ lease: LongLivedLease) {
        logger.info(
            "resuming long-lived operation whose lease expired",
            metadata: ["stratus.operation.id": "\(lease.operationID)"])
        start(lease)
    }

    /// Finishes the operation of `lease`, claimed `attempts` times without finishing, with an
    /// error, and clears its lease.
    private func abandon(_ lease: LongLivedLease, attempts: Int64) {
        do {
            let journal = HostedJournal(engine: engine, number: lease.journal)
            if try journal.abandon(lease.operationID, attempts: attempts - 1) {
                logger.error(
                    "long-lived operation abandoned: its runs kept stopping without finishing",
                    metadata: ["stratus.operation.id": "\(lease.operationID)", "stratus.count": "\(attempts - 1)"])
            }
            try LongLivedLeases(engine: engine).clear(lease)
            signals.signal(lease)
        } catch {
            logger.warning(
                "long-lived operation could not be abandoned; its lease is retried later",
                metadata: ["stratus.operation.id": "\(lease.operationID)", "stratus.reason": "\(error)"])
        }
    }

    /// Takes no more work, suspends every running operation and waits (up to a minute) for
    /// their runs to reach their next journal point and release their leases.
    private func stop() async {
        accepting.store(false, ordering: .relaxed)
        let hosts = running.withLock { Array($0.values) }
        for host in hosts { host.suspend() }
        let deadline = ContinuousClock.now + .seconds(60)
        while running.withLock({ !$0.isEmpty }) && ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                return
            }
        }
    }
}

/// An `OperationQueue`, which Foundation does not mark `Sendable` although it is thread-safe.
private final class OperationQueueBox: @unchecked Sendable {
    private let queue = OperationQueue()

    init(name: String, width: Int) {
        queue.name = name
        queue.maxConcurrentOperationCount = width
    }

    func add(_ operation: Operation) { queue.addOperation(operation) }
}
