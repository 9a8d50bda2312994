import ArgumentParser
import Foundation
import StratusBackend
import StratusConformance

/// `stratus conformance [--backend URL] [--filter TEXT] [--jobs N]`
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance", abstract: "Run the conformance suite against a backend.",
        discussion: """
            Every case of StratusConformance runs on fresh storage of the kind --backend names (the \
            configured backend by default): a new temporary file for sqlite:, a new directory for \
            lmdb:, a new schema for postgresql:, a new store for memory:, with the URL's options. \
            Progress goes to standard error (a bar on a terminal, one line a case otherwise), the \
            summary to standard output. The exit status is 1 if any case fails. Backends (the URL's \
            location is not touched; its options are used):


            """ + BackendHelp.schemes)

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("Only cases whose ID contains this text.", valueName: "text"))
    var filter: String?

    @Option(help: "How many cases run at once.")
    var jobs = max(2, ProcessInfo.processInfo.activeProcessorCount)

    @Flag(help: "List the cases' IDs instead of running them.")
    var list = false

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if options.server != nil {
            throw ValidationError(Self.notThroughAServer)
        }
    }

    /// Why the suite cannot run through a server.
    static let notThroughAServer =
        "conformance cannot use --server: it tests a backend's storage directly, through the backend SPI, on fresh temporary storage, which a stratusd does not expose; run it with --backend URL of the stratusd's kind of backend"

    func run() async throws {
        let cases = ConformanceSuite.cases.filter { filter.map($0.id.contains) ?? true }
        if list {
            if options.json {
                try Output.json(cases.map(\.id))
            } else {
                for c in cases { Output.line(c.id) }
            }
            return
        }
        guard !cases.isEmpty else { throw CLIError("no conformance case matches '\(filter ?? "")'") }
        let settings = try await Session.settings(for: options)
        if settings.usesRemoteServer {
            throw CLIError(
                Self.notThroughAServer
                    + " (the configuration names a server, from \(settings.origins["server"] ?? "?"))",
                exitCode: CLIError.configuration)
        }
        let fixture = try URLBackendFixture(settings.backend, registry: Session.registry)
        // One storage up front, so a URL that cannot make any (sqlite::memory:) is one error.
        try Session.registry.makeTemporaryStorage(like: settings.backend).destroy()
        let progress = ConformanceProgress(total: cases.count, bar: Output.standardErrorIsTerminal)
        let clock = ContinuousClock()
        let start = clock.now
        let results = await ConformanceRunner.run(cases, with: fixture, jobs: jobs) { progress.record($0) }
        progress.finish()
        let report = ConformanceSummary(
            backend: settings.backend.description, results: results, seconds: (clock.now - start).seconds)
        if options.json {
            try Output.json(report)
        } else {
            Output.line(report.table)
        }
        if report.failed > 0 { throw ExitCode(CLIError.failure) }
    }
}

/// Runs cases at most `jobs` at a time.
enum ConformanceRunner {
    /// The outcome of one case.
    struct Result: Sendable {
        var id: String
        var index: Int
        var failure: ConformanceFailure?
        var seconds: Double
    }

    /// Runs `cases` and returns their results in case order; `completed` is called as each ends.
    static func run(
        _ cases: [ConformanceCase], with fixture: any BackendFixture, jobs: Int,
        completed: (Result) -> Void
    ) async -> [Result] {
        await withTaskGroup(of: Result.self) { group in
            var pending = cases.enumerated().makeIterator()
            func startNext() -> Bool {
                guard let (index, c) = pending.next() else { return false }
                group.addTask { await runOne(c, index: index, fixture: fixture) }
                return true
            }
            for _ in 0..<jobs where !startNext() { break }
            var results: [Result] = []
            for await result in group {
                results.append(result)
                completed(result)
                _ = startNext()
            }
            return results.sorted { $0.index < $1.index }
        }
    }

    private static func runOne(_ c: ConformanceCase, index: Int, fixture: any BackendFixture) async -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        var failure: ConformanceFailure?
        do {
            try await c.run(with: fixture)
        } catch let error as ConformanceFailure {
            failure = error
        } catch {
            failure = ConformanceFailure(
                caseID: c.id, step: "run", expected: "no error", actual: "\(error)", trace: [])
        }
        return Result(id: c.id, index: index, failure: failure, seconds: (clock.now - start).seconds)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
