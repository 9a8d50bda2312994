// stratus-bench: Stratus's CloudKit operations against the raw API of each backend.
// See Docs/Performance.md at the root of the repository for what is measured and the latest
// results.
import Foundation
import StratusBackend

/// Runs every selected backend, then prints the table and writes the JSON, SVG and table.
func runBenchmarks(_ options: Options) throws {
    let sizes = options.quick ? Sizes.quick : Sizes.full
    let machine = MachineInfo.current()
    let date = ISO8601DateFormatter().string(from: Date())
    let executable = try currentExecutable()
    let load = LoadSampler()
    Log.step(
        "stratus-bench: \(options.targets.map(\.name)) on \(machine.processors) cores, load \(machine.loadAverageAtStart)"
    )
    let footprint = try EngineFootprint.measure(records: 10 * sizes.batchSize, batchSize: sizes.batchSize)
    Log.step("engine footprint per record: \(footprint.summary)")
    var backends: [BackendReport] = []
    for target in options.targets {
        backends.append(
            try target.withSession(options.settings) { target in
                try BackendRun(target: target, sizes: sizes, executable: executable, footprint: footprint).run()
            })
    }
    let report = BenchmarkReport(
        machine: machine, date: date, command: CommandLine.arguments.joined(separator: " "),
        sourceRevision: SourceRevision.current(), quick: options.quick, sizes: sizes, footprint: footprint,
        loadAverageAtEnd: MachineInfo.loadAverage(), loadDuringRun: load.stop(), backends: backends)

    let table = TableReport(report: report).markdown
    let run = report.loadDuringRun
    print(
        """
        \(report.date) · \(report.sourceRevision ?? "unknown revision") · \(machine.processors) cores, \
        \(machine.cpuModel), \(machine.memoryGiB) GiB · load (1 min) during the run: min \(Format.fixed(run.minimum, 2)), \
        median \(Format.fixed(run.median, 2)), max \(Format.fixed(run.maximum, 2))

        """)
    print(table)
    let directory = URL(fileURLWithPath: options.outputDirectory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: directory.appendingPathComponent("results.json"))
    try Data(SVGChart(report: report).svg.utf8).write(to: directory.appendingPathComponent("scaling.svg"))
    try Data((table + "\n").utf8).write(to: directory.appendingPathComponent("table.md"))
    Log.step("wrote results.json, scaling.svg and table.md to \(directory.path)")
}

/// The path of this program, for launching child processes.
func currentExecutable() throws -> String {
    let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    guard !path.isEmpty else { throw BenchmarkFailure("cannot find this program's path") }
    return path
}

// Standard output holds only the table: Stratus's logs go to standard error, warnings and
// worse only (an info line per opened store would otherwise land on standard output).
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}

BenchCommand.main()
