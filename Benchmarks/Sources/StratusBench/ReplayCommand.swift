import ArgumentParser
import Foundation

/// `stratus-bench replay <backend> [--records N] [--misses N] [--sets N] [--key-bytes N]
/// [--value-bytes N] [--record-in-change-log]`: replays a storage pattern through the SPI on a
/// new store and prints saves/s and drained records/s, to price a key-layout change. Without
/// options it replays the engine's measured footprint. PostgreSQL uses the server of
/// `STRATUS_BENCH_POSTGRES_URL`, else a private one started for the command.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a storage pattern through the SPI on a new store, to price a key-layout change.",
        discussion: """
            Without options it replays the engine's measured footprint per record; each option changes \
            one part of it. Prints one JSON line: the pattern, saves/s and drained records/s. PostgreSQL \
            uses the server of STRATUS_BENCH_POSTGRES_URL, else a private one started for the command.
            """)

    @Argument(help: "The backend.")
    var backend: BackendName

    @Option(help: "Records to save and drain (at least 1).")
    var records = 100_000

    @Option(help: "Point reads of absent keys per saved record (default: the engine's).")
    var misses: Int?

    @Option(help: "Keys written per saved record (at least 2: the record and its change entry; default: the engine's).")
    var sets: Int?

    @Option(help: "Average key size in bytes (default: the engine's).")
    var keyBytes: Int?

    @Option(help: "Size of the record's value in bytes (default: the engine's).")
    var valueBytes: Int?

    @Flag(help: "The change-log entry carries the record's value: a drain is one range scan, no point reads.")
    var recordInChangeLog = false

    func validate() throws {
        let numbers = [
            ("--records", records), ("--misses", misses), ("--sets", sets), ("--key-bytes", keyBytes),
            ("--value-bytes", valueBytes),
        ]
        for (name, value) in numbers where (value ?? 0) < 0 {
            throw ValidationError("\(name) needs a number of at least 0")
        }
    }

    func run() throws {
        let target = backend.target
        let name = target.name
        let footprint = try EngineFootprint.measure(records: 4000, batchSize: 400)
        var pattern = SPIReplay.Pattern(footprint: footprint)
        let records = max(1, self.records)
        pattern.recordInChangeLog = pattern.recordInChangeLog || recordInChangeLog
        if let misses { pattern.misses = misses }
        if let sets { pattern.sets = max(2, sets) }
        if let keyBytes { pattern.keyBytes = keyBytes }
        if let valueBytes { pattern.valueBytes = valueBytes }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-replay-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try target.withSession(TargetSettings.fromEnvironment()) { target in
            let store = try target.makeStore(in: directory)
            defer { try? store.backend.close() }
            return try SPIReplay(pattern: pattern).run(records: records, batchSize: 400, on: store.backend)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = try encoder.encode(ReplayOutput(backend: name, pattern: pattern, result: result))
        FileHandle.standardOutput.write(line + Data("\n".utf8))
    }

    /// One line of output.
    private struct ReplayOutput: Codable {
        var backend: String
        var pattern: SPIReplay.Pattern
        var result: SPIReplay.Result
    }
}
