import Foundation
import Stratus

/// `stratus-bench profile <backend> [saves|drain] [--records N] [--rounds N]`: only the
/// CloudKit-level saves or drains, repeated, so that a profiler (`perf record`) sees one phase.
/// `saves` saves `rounds` × `records` records in batches of 400 into new zones; `drain` saves
/// `records` once, then drains them `rounds` times. Prints each round's rate.
enum ProfileCommand {
    /// Runs the command with the arguments after `profile`.
    static func main(_ arguments: [String]) throws {
        let usage = "usage: stratus-bench profile <backend> saves|drain [--records N] [--rounds N]"
        guard arguments.count >= 2, let target = BenchmarkTargets.named(arguments[0]) else {
            throw BenchmarkFailure(usage)
        }
        let phase = arguments[1]
        guard phase == "saves" || phase == "drain" else { throw BenchmarkFailure(usage) }
        var records = 100_000
        var rounds = 5
        var remaining = arguments.dropFirst(2)
        while let option = remaining.popFirst() {
            guard let text = remaining.popFirst(), let number = Int(text), number > 0 else {
                throw BenchmarkFailure("profile: \(option) needs a positive number\n\(usage)")
            }
            switch option {
            case "--records": records = number
            case "--rounds": rounds = number
            default: throw BenchmarkFailure("profile: unknown option \(option)\n\(usage)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-profile-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try target.withSession(TargetSettings.fromEnvironment()) { target in
            let store = try target.makeStore(in: directory)
            defer { try? store.backend.close() }
            let workload = Workload(store: store)
            if phase == "saves" {
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
                    var fetched = 0
                    let seconds = try Timing.seconds { fetched = try workload.fetchChanges(zoneID, since: nil).records }
                    guard fetched == records else { throw BenchmarkFailure("drained \(fetched) of \(records)") }
                    Log.step("drain: \(Format.integer(Double(records) / seconds)) records/s")
                }
            }
        }
    }
}
