import Foundation

/// Writing to standard output and standard error.
enum Output {
    /// Writes `text` and a line break to standard output.
    static func line(_ text: String = "") {
        write(text + "\n", to: FileHandle.standardOutput)
    }

    /// Writes `error: <message>` to standard error.
    static func error(_ message: String) {
        write("error: \(message)\n", to: FileHandle.standardError)
    }

    /// Writes `warning: <message>` to standard error.
    static func warning(_ message: String) {
        write("warning: \(message)\n", to: FileHandle.standardError)
    }

    /// Writes `text` to standard error as is (progress lines).
    static func status(_ text: String) {
        write(text, to: FileHandle.standardError)
    }

    /// Writes `value` as one line of JSON (keys sorted) to standard output.
    static func json(_ value: some Encodable) throws {
        line(try jsonLine(value))
    }

    /// `value` as one line of JSON, keys sorted, slashes not escaped.
    static func jsonLine(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Whether standard error is a terminal (for progress bars).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}
