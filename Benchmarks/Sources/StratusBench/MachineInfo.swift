import Foundation

/// The machine a run measured, read from `/proc` (Linux).
struct MachineInfo: Codable {
    /// Processors available to the process (`nproc`).
    var processors: Int
    /// The CPU's model name from `/proc/cpuinfo`.
    var cpuModel: String
    /// Physical memory, in GiB (`MemTotal` of `/proc/meminfo`).
    var memoryGiB: Double
    /// The kernel (`/proc/sys/kernel/osrelease`).
    var kernel: String
    /// The load averages (1, 5, 15 minutes) when the run started.
    var loadAverageAtStart: [Double]

    /// The current machine.
    static func current() -> MachineInfo {
        let cpuinfo = read("/proc/cpuinfo")
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let memTotal =
            read("/proc/meminfo").split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .map { Double($0.filter(\.isNumber)) ?? 0 } ?? 0
        return MachineInfo(
            processors: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model,
            memoryGiB: (memTotal / 1024 / 1024 * 10).rounded() / 10,
            kernel: read("/proc/sys/kernel/osrelease").trimmingCharacters(in: .whitespacesAndNewlines),
            loadAverageAtStart: loadAverage())
    }

    /// The load averages (1, 5, 15 minutes) now.
    static func loadAverage() -> [Double] {
        read("/proc/loadavg").split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

/// The source revision being measured, from `git` in the current directory.
enum SourceRevision {
    /// The `STRATUS_BENCH_REVISION` environment variable when set (a run from a source
    /// snapshot, which `git` would mistake for the enclosing checkout), else `HEAD`'s short
    /// hash with `-dirty` when `Sources/` or `Backends/` differ from it, or `nil` outside a
    /// checkout.
    static func current() -> String? {
        if let revision = ProcessInfo.processInfo.environment["STRATUS_BENCH_REVISION"], !revision.isEmpty {
            return revision
        }
        guard let head = git(["rev-parse", "--short", "HEAD"]), !head.isEmpty else { return nil }
        let changes =
            git(["status", "--porcelain", "--", ":(top)Sources", ":(top)Backends", ":(top)Package.swift"]) ?? ""
        return changes.isEmpty ? head : head + "-dirty"
    }

    private static func git(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
