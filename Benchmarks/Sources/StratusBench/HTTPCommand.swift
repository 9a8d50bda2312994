import ArgumentParser
import Foundation
import StratusServer

/// `stratus-bench http`: the Kinto peer's workload shapes (`/work/shared/peers/kinto`, and
/// Docs/Performance.md, "stratusd over HTTP") against `stratusd` on SQLite and on a private
/// PostgreSQL with the peer's settings, and through the embedded API on SQLite.
struct HTTPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "The Kinto peer's workload shapes against stratusd over HTTP, and the embedded API.",
        discussion: """
            Each target gets a new store; each run a new zone. Creates one per request and in batches \
            of 25, gets by ID, changes since a token (all, half, by pages of 500), on one keep-alive \
            loopback connection; the median of the runs in records/s. PostgreSQL is a private server \
            with fsync, synchronous_commit and full_page_writes off, as the peer's.
            """)

    @Option(help: ArgumentHelp("The stratusd to run (build it in release mode).", valueName: "path"))
    var stratusd = ".build/release/stratusd"

    @Option(help: ArgumentHelp("Targets, comma-separated: sqlite, postgresql, embedded.", valueName: "list"))
    var targets = "sqlite,postgresql,embedded"

    @Option(help: "Records per run (the peer's N).")
    var records = 2000

    @Option(help: "Runs per target; the median is reported.")
    var runs = 3

    @Option(
        help: ArgumentHelp(
            "Instead of the runs: after one run, repeat this one shape for --loop-seconds, printing stratusd's pid first (for perf record -p).",
            valueName: "shape"))
    var loop: String?

    @Option(help: "Seconds to repeat the --loop shape.")
    var loopSeconds = 10.0

    func validate() throws {
        if let loop, PeerShape(rawValue: loop) == nil {
            throw ValidationError("unknown shape \(loop); one of \(PeerShape.allCases.map(\.rawValue))")
        }
        guard records >= 2 && runs >= 1 else { throw ValidationError("--records ≥ 2 and --runs ≥ 1") }
    }

    func run() throws {
        // The client's answers (1 MB for `since-all`) from the heap, as stratusd's: fresh
        // mappings faulted in page by page cost the client more CPU than its reading.
        StratusServer.keepAnswerBuffersInHeap()
        let machine = MachineInfo.current()
        print("stratus-bench http: \(records) records, \(runs) runs, \(machine.processors) cores, \(machine.cpuModel)")
        for target in targets.split(separator: ",") {
            let timings: PeerShapeTimings
            switch target {
            case "sqlite": timings = try measureServer(label: "stratusd, SQLite", backend: nil)
            case "postgresql": timings = try measurePostgreSQL()
            case "embedded": timings = try measureEmbedded()
            default: throw ValidationError("unknown target \(target)")
            }
            print(timings.report(records: records))
        }
    }

    private func measureServer(label: String, backend: String?) throws -> PeerShapeTimings {
        let server = try StratusdServer(executable: stratusd, backend: backend)
        defer { server.stop() }
        let workload = try HTTPPeerWorkload(server: server, records: records)
        var timings = PeerShapeTimings(label: label)
        if let loop = loop.flatMap(PeerShape.init(rawValue:)) {
            try workload.run(0, into: &timings)
            FileHandle.standardError.write(
                Data("stratusd pid \(server.processIdentifier): repeating \(loop.rawValue) for \(loopSeconds) s\n".utf8)
            )
            let rate = try workload.repeatShape(loop, seconds: loopSeconds)
            print("  \(loop.rawValue) repeated: \(Format.fixed(rate, 0)) records/s")
            return timings
        }
        for number in 0..<runs { try workload.run(number, into: &timings) }
        timings.label += ", stratusd RSS at the end \(Format.fixed(Double(server.residentKiB ?? 0) / 1024, 1)) MiB"
        return timings
    }

    private func measurePostgreSQL() throws -> PeerShapeTimings {
        let postgres = try PostgreSQLBenchServer(settings: PostgreSQLBenchServer.peerSettings)
        defer { postgres.stop() }
        return try measureServer(label: "stratusd, PostgreSQL (fsync, synchronous_commit off)", backend: postgres.url)
    }

    private func measureEmbedded() throws -> PeerShapeTimings {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-embedded-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteTarget().makeStore(in: directory.path)
        let workload = EmbeddedPeerWorkload(workload: Workload(store: store), records: records)
        var timings = PeerShapeTimings(label: "embedded CloudKit API, SQLite (no HTTP)")
        for number in 0..<runs { try workload.run(number, into: &timings) }
        return timings
    }
}
