/// Why a conformance case failed: which case, at which step, what was expected, what happened,
/// and the labelled trace of what the case did until then.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The stable dotted ID of the case, such as `changeTokens.deleteIsReportedOnce`.
    public var caseID: String
    /// The step that failed.
    public var step: String
    /// What the contract requires.
    public var expected: String
    /// What the backend did.
    public var actual: String
    /// The steps the case took before failing, oldest first.
    public var trace: [String]

    /// A failure of `caseID` at `step`.
    public init(caseID: String, step: String, expected: String, actual: String, trace: [String]) {
        self.caseID = caseID
        self.step = step
        self.expected = expected
        self.actual = actual
        self.trace = trace
    }

    /// A textual description, for logs.
    public var description: String {
        var text = "conformance case \(caseID) failed at step '\(step)'\n  expected: \(expected)\n  actual:   \(actual)"
        if !trace.isEmpty {
            text += "\n  trace:\n" + trace.map { "    - \($0)" }.joined(separator: "\n")
        }
        return text
    }
}

/// Every failure of a ``ConformanceSuite/runAll(with:)`` run.
public struct ConformanceReport: Error, Sendable, CustomStringConvertible {
    /// How many cases ran.
    public var casesRun: Int
    /// The failures, in case order.
    public var failures: [ConformanceFailure]

    /// A textual description, for logs.
    public var description: String {
        "\(failures.count) of \(casesRun) conformance cases failed:\n"
            + failures.map(\.description).joined(separator: "\n")
    }
}
