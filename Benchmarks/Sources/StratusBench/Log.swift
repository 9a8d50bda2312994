import Foundation

/// Progress on standard error, so that standard output holds only the table.
enum Log {
    private static let start = ContinuousClock.now

    /// A step of the run.
    static func step(_ message: String) {
        write("[\(elapsed)] \(message)")
    }

    /// A detail inside a step.
    static func detail(_ message: String) {
        write("[\(elapsed)]   \(message)")
    }

    private static var elapsed: String {
        String(format: "%7.1fs", (ContinuousClock.now - start).seconds)
    }

    private static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
