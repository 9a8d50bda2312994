import ArgumentParser
import Foundation
import Stratus

/// `stratus-bench profile <backend> saves|drain [--records N] [--rounds N]`: only the
/// CloudKit-level saves or drains, repeated, so that a profiler (`perf record`) sees one phase.
/// `saves` saves `rounds` × `records` records in batches of 400 into new zones; `drain` saves
/// `records` once, then drains them `rounds` times. Prints each round's rate.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Repeat only the saves or only the drain, for a profiler (perf record).",
        discussion: """
            saves: saves --rounds × --records records in batches of 400, each round into a new zone. \
            drain: saves --records records once, then drains them --rounds times. Prints each round's rate.
            """)

    /// The phase to repeat.
    enum Phase: String, ExpressibleByArgument, CaseIterable {
        case saves, drain
    }

    @Argument(help: "The backend.")
    var backend: BackendName

    @Argument(help: "The phase to repeat.")
    var phase: Phase

    @Option(help: "Records saved per round (saves) or saved once (drain).")
    var records = 100_000

    @Option(help: "How many rounds.")
    var rounds = 5

    func validate() throws {
        guard records > 0, rounds > 0 else { throw ValidationError("--records and --rounds must be positive") }
    }

    func run() throws {
        let target = backend.target
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-profile-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try target.withSession(TargetSettings.fromEnvironment()) { target in
            let store = try target.makeStore(in: directory)
            defer { try? store.backend.close() }
            let workload = Workload(store: store)
            if phase == .saves {
                for round in 0..<rounds {
                    let zoneID = try workload.makeZone("profile-\(round)")
                    let timing = try workload.save(
                        0..<records, type: Workload.itemType, into: zoneID, batchSize: 400, rankModulus: records)
                    Log.step("saves: \(Format.integer(Double(records) / timing.seconds)) records/s")
                }
            } else {
                let zoneID = try workload.makeZone("profile")
                try workload.save(
                    0..<records, type: Workload.itemType, into: zoneID, batchSize: 400, rankModulus: records)
                for _ in 0..<rounds {
                    var fetched: Workload.ChangesFetched?
                    let seconds = try Timing.seconds { fetched = try workload.fetchChanges(zoneID, since: nil) }
                    let count = fetched?.records ?? 0
                    guard count == records else { throw BenchmarkFailure("drained \(count) of \(records)") }
                    Log.step(
                        "drain: \(Format.integer(Double(records) / seconds)) records/s, field checksum \(fetched?.checksum ?? 0)"
                    )
                }
            }
        }
    }
}
