import Logging
internal import Stratus

/// stratusd's builder of the indexes a schema import declares (decision 0020.8): the import
/// endpoint stores the schema and answers at once; this service builds what the import left,
/// one batch (0019.7) per engine call on the engine's threads, off any request.
///
/// It looks for unfinished builds when the server starts (a build a crash or a shutdown cut
/// short resumes from its cursor), when this server imports a schema (``wake()``), and every
/// ``pollInterval`` (another stratusd's import on the same store, or a failed round). Graceful
/// shutdown cancels it; it stops between two batches. Several stratusd on one store may build
/// the same index at once: their batches serialize on the index's cursor.
final class DeclaredIndexBuilder: Sendable {
    private let engine: Engine
    private let executor: EngineExecutor
    private let logger: Logger
    private let signal = WakeSignal()
    /// How often the store is read for builds other processes left: 30 seconds.
    let pollInterval: Duration

    init(engine: Engine, executor: EngineExecutor, logger: Logger, pollInterval: Duration = .seconds(30)) {
        self.engine = engine
        self.executor = executor
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Has the builder look for builds now (after an import), or as soon as it is done with
    /// the one under way.
    func wake() { signal.wake() }

    /// Builds what is pending, then waits for a wake or the poll interval, until cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                try await buildPending()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("declared index build failed", metadata: ["stratus.reason": "\(error)"])
            }
            await signal.wait(timeout: pollInterval)
        }
    }

    /// Builds the declared indexes of every container × environment an import marked.
    private func buildPending() async throws {
        let marked = try await engineCall { [engine] in try engine.pendingIndexBuilds() }
        for builds in marked {
            try await build(builds)
        }
    }

    /// Builds every index `builds` lists, batch by batch, then clears its mark — unless an
    /// import came meanwhile, whose indexes the next round lists.
    private func build(_ builds: PendingIndexBuilds) async throws {
        let scope = builds.scope
        let pending = try await engineCall { [engine] in try engine.pendingIndexes(scope) }
        let metadata: Logger.Metadata = [
            "stratus.container": "\(scope.container)", "stratus.environment": "\(scope.environment.rawValue)",
        ]
        if !pending.isEmpty {
            logger.info(
                "building declared indexes", metadata: metadata.merging(["stratus.count": "\(pending.count)"]) { $1 })
        }
        for index in pending {
            var batches = 0
            var ready = false
            while !ready {
                ready = try await engineCall { [engine] in try engine.buildIndexBatch(index) }
                batches += 1
            }
            logger.debug(
                "declared index built", metadata: ["stratus.index": "\(index)", "stratus.batches": "\(batches)"])
        }
        if try await engineCall({ [engine] in try engine.finishIndexBuilds(builds) }) {
            if !pending.isEmpty { logger.info("declared indexes built", metadata: metadata) }
        } else {
            signal.wake()
        }
    }

    /// `body` on the engine's threads; while the server refuses work for load (503), it waits
    /// a second and tries again, so requests keep their threads.
    private func engineCall<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        while true {
            try Task.checkCancellation()
            do {
                return try await executor.run(requestID: "declared-index-build", body)
            } catch let error as ServerError where error.status == .serviceUnavailable {
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
