import Foundation
import StratusConformance

/// Progress of a conformance run on standard error: a bar redrawn in place on a terminal,
/// one line per case otherwise.
final class ConformanceProgress {
    private let total: Int
    private let bar: Bool
    private var done = 0
    private var failed = 0

    init(total: Int, bar: Bool) {
        self.total = total
        self.bar = bar
    }

    /// Records one finished case.
    func record(_ result: ConformanceRunner.Result) {
        done += 1
        if result.failure != nil { failed += 1 }
        if bar {
            let fraction = total == 0 ? 1 : Double(done) / Double(total)
            ProgressLine.draw(
                ProgressLine.bar(fraction) + " \(done)/\(total)" + (failed > 0 ? "  \(failed) failed" : "")
                    + "  \(result.id)")
        } else {
            let status = result.failure == nil ? "ok  " : "FAIL"
            let count = String(done).leftPadded(to: String(total).count)
            let seconds = String(format: "%.3f", result.seconds).leftPadded(to: 7)
            Output.status("\(status) \(count)/\(total) \(seconds)s  \(result.id)\n")
        }
    }

    /// Ends the bar's line.
    func finish() {
        if bar { ProgressLine.clear() }
    }
}

/// The outcome of a conformance run, as a table or as JSON.
struct ConformanceSummary: Encodable {
    /// One failed case.
    struct Failure: Encodable {
        var caseID: String
        var step: String
        var expected: String
        var actual: String
        var message: String
    }

    var backend: String
    var cases: Int
    var passed: Int
    var failed: Int
    var seconds: Double
    var failures: [Failure]

    init(backend: String, results: [ConformanceRunner.Result], seconds: Double) {
        self.backend = backend
        self.cases = results.count
        self.failed = results.filter { $0.failure != nil }.count
        self.passed = cases - failed
        self.seconds = (seconds * 1000).rounded() / 1000
        self.failures = results.compactMap(\.failure).map {
            Failure(
                caseID: $0.caseID, step: $0.step, expected: $0.expected, actual: $0.actual,
                message: "at '\($0.step)': expected \($0.expected), got \($0.actual)")
        }
    }

    /// The summary table.
    var table: String {
        var lines = [
            "Conformance of '\(backend)': \(cases) cases in \(String(format: "%.1f", seconds)) s",
            "",
            "  passed  " + String(passed).leftPadded(to: 5),
            "  failed  " + String(failed).leftPadded(to: 5),
        ]
        if !failures.isEmpty {
            let width = min(48, failures.map(\.caseID.count).max() ?? 0)
            lines += ["", "  " + "CASE".padding(toLength: width, withPad: " ", startingAt: 0) + "  MESSAGE"]
            for failure in failures {
                let message = failure.message.replacingOccurrences(of: "\n", with: " ")
                lines.append(
                    "  " + failure.caseID.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + message)
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The string with spaces before it, to at least `width` characters.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
