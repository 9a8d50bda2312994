public import InMemoryLogging
public import Logging

/// A `Logger` whose records stay in memory, for tests that pass it in explicitly (the global
/// `LoggingSystem` is never bootstrapped by tests: they run in parallel in one process).
///
/// ```swift
/// let capture = LogCapture()
/// let container = CKContainer(identifier: "iCloud.test", backend: backend, logger: capture.logger)
/// …
/// #expect(capture.entries(message: "operation finished").count == 1)
/// ```
public struct LogCapture: Sendable {
    /// The handler holding the records (its copies share them).
    public let handler = InMemoryLogHandler()
    /// A logger at `trace` level writing to ``handler``.
    public let logger: Logger

    /// A capture whose logger has `label`.
    public init(label: String = "stratus.test") {
        var logger = Logger(label: label) { [handler] _ in handler }
        logger.logLevel = .trace
        self.logger = logger
    }

    /// Every record so far, in order.
    public var entries: [InMemoryLogHandler.Entry] { handler.entries }

    /// The records whose message is `message`.
    public func entries(message: String) -> [InMemoryLogHandler.Entry] {
        entries.filter { $0.message.description == message }
    }

    /// Every message, and every metadata key and value (lists and dictionaries flattened), as
    /// text: what a secret or a record's content must never be found in.
    public var allText: [String] {
        entries.flatMap { entry in
            [entry.message.description] + entry.metadata.flatMap { [$0.key] + Self.flatten($0.value) }
        }
    }

    /// Whether `text` occurs in any message, metadata key or value.
    public func mentions(_ text: String) -> Bool {
        allText.contains { $0.contains(text) }
    }

    private static func flatten(_ value: Logger.MetadataValue) -> [String] {
        switch value {
        case .string(let string): return [string]
        case .stringConvertible(let convertible): return [convertible.description]
        case .array(let values): return values.flatMap(flatten)
        case .dictionary(let values): return values.flatMap { [$0.key] + flatten($0.value) }
        }
    }
}

extension InMemoryLogHandler.Entry {
    /// The metadata value at `key` as text, `nil` when absent.
    public func value(_ key: String) -> String? {
        metadata[key].map { "\($0)" }
    }
}
