import Foundation

/// A whole `stratus-bench remote` run: per backend, the embedded measurements, then the remote
/// ones on a `stratusd`; then the table and the JSON.
struct RemoteBenchmark {
    /// The sizes to use.
    let sizes: Sizes
    /// What the backends need from outside (the PostgreSQL server).
    let settings: TargetSettings
    /// The `stratusd` binary to run.
    let stratusd: String
    /// Where remote-results.json and remote-table.md go.
    let outputDirectory: String

    /// Measures every backend of `targets`, prints the table and writes the results.
    func run(_ targets: [any BenchmarkTarget]) throws {
        let machine = MachineInfo.current()
        let date = ISO8601DateFormatter().string(from: Date())
        let load = LoadSampler()
        Log.step(
            "stratus-bench remote: \(targets.map(\.name)) on \(machine.processors) cores, load \(machine.loadAverageAtStart)"
        )
        var results: [RemoteBackendResult] = []
        for target in targets {
            results.append(try target.withSession(settings) { try measure($0) })
        }
        let report = RemoteReport(
            machine: machine, date: date, command: CommandLine.arguments.joined(separator: " "),
            sourceRevision: SourceRevision.current(), sizes: sizes, loadDuringRun: load.stop(), backends: results)
        let table = RemoteTable(report: report).markdown
        let during = report.loadDuringRun
        print(
            """
            \(date) · \(report.sourceRevision ?? "unknown revision") · \(machine.processors) cores, \(machine.cpuModel), \
            \(machine.memoryGiB) GiB · load (1 min) during the run: min \(Format.fixed(during.minimum, 2)), \
            median \(Format.fixed(during.median, 2)), max \(Format.fixed(during.maximum, 2))

            """)
        print(table)
        for backend in results { print("\n\(backend.backend): \(backend.label); \(backend.server)") }
        try write(report, table: table)
    }

    /// The embedded run, then the remote run, of `target`, each on a new store.
    private func measure(_ target: any BenchmarkTarget) throws -> RemoteBackendResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-remote-\(target.name)-\(UUID().uuidString)"
        ).path
        for name in ["embedded", "remote"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + name, withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }

        Log.step("\(target.name): embedded")
        let store = try target.makeStore(in: directory + "/embedded")
        let embedded = try RemoteModeRun(
            mode: "embedded", workload: Workload(store: store), sizes: sizes, serverCPU: nil
        )
        .run()
        try store.backend.close()

        Log.step("\(target.name): remote, starting stratusd")
        let server = try RemoteStratusd(executable: stratusd, target: target, in: directory + "/remote")
        defer { server.stop() }
        let remote = try RemoteModeRun(
            mode: "remote", workload: Workload(container: server.container), sizes: sizes,
            serverCPU: { server.cpuSeconds }
        ).run()
        return RemoteBackendResult(
            backend: target.name, label: target.label, server: server.description, embedded: embedded, remote: remote,
            serverResidentMiB: server.residentMiB)
    }

    private func write(_ report: RemoteReport, table: String) throws {
        let directory = URL(fileURLWithPath: outputDirectory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: directory.appendingPathComponent("remote-results.json"))
        try Data((table + "\n").utf8).write(to: directory.appendingPathComponent("remote-table.md"))
        Log.step("wrote remote-results.json and remote-table.md to \(directory.path)")
    }
}
