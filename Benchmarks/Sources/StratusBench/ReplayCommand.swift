import Foundation

/// `stratus-bench replay <backend> [--records N] [--misses N] [--sets N] [--key-bytes N]
/// [--value-bytes N] [--record-in-change-log]`: replays a storage pattern through the SPI on a
/// new store and prints saves/s and drained records/s, to price a key-layout change. Without
/// options it replays the engine's measured footprint. PostgreSQL uses the server of
/// `STRATUS_BENCH_POSTGRES_URL`, else a private one started for the command.
enum ReplayCommand {
    /// Runs the command with the arguments after `replay`.
    static func main(_ arguments: [String]) throws {
        guard let name = arguments.first, let target = BenchmarkTargets.named(name) else {
            throw BenchmarkFailure(
                "usage: stratus-bench replay <backend> [--records N] [--misses N] [--sets N] [--key-bytes N] "
                    + "[--value-bytes N] [--record-in-change-log]")
        }
        let footprint = try EngineFootprint.measure(records: 4000, batchSize: 400)
        var pattern = SPIReplay.Pattern(footprint: footprint)
        var records = 100_000
        var remaining = arguments.dropFirst()
        while let option = remaining.popFirst() {
            if option == "--record-in-change-log" {
                pattern.recordInChangeLog = true
                continue
            }
            guard let text = remaining.popFirst(), let number = Int(text), number >= 0 else {
                throw BenchmarkFailure("replay: \(option) needs a number")
            }
            switch option {
            case "--records": records = max(1, number)
            case "--misses": pattern.misses = number
            case "--sets": pattern.sets = max(2, number)
            case "--key-bytes": pattern.keyBytes = number
            case "--value-bytes": pattern.valueBytes = number
            default: throw BenchmarkFailure("replay: unknown option \(option)")
            }
        }
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
