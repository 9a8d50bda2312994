import Foundation
import StratusTestSupport
import Testing

/// `scripts/load-test.sh` against the built `stratusd`: `wrk` on loopback, 8 s per endpoint
/// (records/modify, records/lookup, records/changes, zones/list), 0 errors and a flat resident
/// size (decision 0012's test plan, Load). The script prints p50, p99 and requests/s per
/// endpoint; only the RSS check is a bound, no latency or rate is asserted.
@Suite("stratusd: load on loopback")
struct LoadTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/load-test.sh")

    @Test func wrkOnEveryEndpointGetsNoErrorAndAFlatRSS() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-load-test")
        defer { try? directory.remove() }
        let output = directory.appending("output")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.script.path]
        var environment = ProcessInfo.processInfo.environment
        environment["STRATUSD"] = try BuiltExecutable.url(named: "stratusd").path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        try process.run()
        // Minutes: waited for without holding a thread of the cooperative pool.
        #expect(await process.exited(within: 900), "scripts/load-test.sh ended")
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        print(text)
        #expect(process.terminationStatus == 0, "scripts/load-test.sh failed:\n\(text)")
    }
}
