import Foundation
import Logging
import StratusBackend
import Synchronization

/// One `LISTEN` connection of its own and the thread that reads it, for one
/// ``PostgreSQLBackend/signals(channel:)`` stream: notifications become
/// ``CommitSignal/signal(_:)``; a lost connection is reopened with growing pauses (250 ms to
/// 5 s) and announced by ``CommitSignal/reconnected`` once listening again. It stops when the
/// stream's consumer goes away (checked at least every 250 ms).
final class PostgreSQLListener: Sendable {
    private let channel: String
    private let parameters: [(String, String)]
    private let redact: [String]
    private let logger: Logger
    private let continuation: AsyncStream<CommitSignal>.Continuation
    private let stopped = Atomic<Bool>(false)

    /// How long one wait for notifications lasts, and so how soon ``stop()`` takes effect.
    static let waitMilliseconds: Int32 = 250

    init(
        channel: String, parameters: [(String, String)], redact: [String], log: PostgreSQLConnectionLog,
        continuation: AsyncStream<CommitSignal>.Continuation
    ) {
        self.channel = channel
        // TCP keepalives, unless configured otherwise: a connection that died without a word
        // (a partition, a half-open socket) is noticed within about a minute and reopened.
        let keepalives = [
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
        ]
        self.parameters = parameters + keepalives.filter { keyword in !parameters.contains { $0.0 == keyword.0 } }
        self.redact = redact
        self.logger = log.logger
        self.continuation = continuation
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "stratus.postgresql.listen"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private var isStopped: Bool { stopped.load(ordering: .relaxed) }

    private func run() {
        var pause = 0.25
        var interrupted = false
        while !isStopped {
            do {
                let connection = try PostgreSQLConnection(parameters: parameters, redact: redact)
                defer { connection.close() }
                try connection.listen(channel)
                if interrupted {
                    logger.info("PostgreSQL listening again for commit signals")
                    continuation.yield(.reconnected)
                } else {
                    logger.info("PostgreSQL listening for commit signals")
                }
                interrupted = false
                pause = 0.25
                try relay(connection)
            } catch {
                if !interrupted {
                    let code = (error as? BackendError)?.code.description ?? "\(type(of: error))"
                    logger.warning(
                        "PostgreSQL listening for commit signals failed; retrying",
                        metadata: [LogKey.error: "\(code)"])
                }
                interrupted = true
                sleep(seconds: pause)
                pause = min(pause * 2, 5)
            }
        }
        continuation.finish()
    }

    /// Yields every notification until stopped or the connection breaks (which throws).
    private func relay(_ connection: PostgreSQLConnection) throws {
        while !isStopped {
            for payload in try connection.notifications(waitingUpTo: Self.waitMilliseconds) {
                // A consumer that fell 4,096 signals behind lost the oldest: say so, as after
                // a reconnect, so it reads every head once.
                if case .dropped = continuation.yield(.signal(payload)) { continuation.yield(.reconnected) }
            }
        }
    }

    /// Sleeps in slices of at most 250 ms, returning early once stopped.
    private func sleep(seconds: Double) {
        var left = seconds
        while left > 0, !isStopped {
            Thread.sleep(forTimeInterval: min(left, 0.25))
            left -= 0.25
        }
    }
}
