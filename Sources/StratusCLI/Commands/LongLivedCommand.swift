import ArgumentParser
import Stratus

/// `stratus long-lived list|show|cancel`
struct LongLivedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "long-lived", abstract: "List, show and cancel the container's long-lived operations.",
        discussion: """
            Long-lived operations (configuration.isLongLived = true) are journaled in the store and \
            outlive the process that started them; these commands use CKContainer's \
            allLongLivedOperationIDs(), longLivedOperation(for:) and CKOperation.cancel().
            """,
        subcommands: [List.self, Show.self, Cancel.self])

    /// `stratus long-lived list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the outstanding long-lived operations.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Session.with(options) { session in
                let ids = try await session.container.allLongLivedOperationIDs()
                var operations: [OperationSummary] = []
                for id in ids {
                    // An operation that left the list since it was listed is skipped.
                    if let status = try await session.container.longLivedOperationStatus(for: id) {
                        operations.append(OperationSummary(status))
                    }
                }
                if options.json {
                    try Output.json(operations)
                } else if operations.isEmpty {
                    Output.status("no long-lived operations\n")
                } else {
                    for summary in operations {
                        Output.line(
                            "\(summary.id)  \(summary.type)  \(summary.state)  persisted \(summary.persistedAt)")
                    }
                }
            }
        }
    }

    /// `stratus long-lived show ID`
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one long-lived operation.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The operation's ID.") var id: String

        func run() async throws {
            try await Session.with(options) { session in
                guard let status = try await session.container.longLivedOperationStatus(for: id) else {
                    throw CLIError("unknownItem: no long-lived operation has ID '\(id)'")
                }
                let summary = OperationSummary(status)
                if options.json {
                    try Output.json(summary)
                } else {
                    Output.line("id         \(summary.id)")
                    Output.line("type       \(summary.type)")
                    Output.line("database   \(summary.database)")
                    Output.line("state      \(summary.state)")
                    Output.line("persisted  \(summary.persistedAt)")
                    Output.line("finished   \(summary.finishedAt ?? "-")")
                    Output.line("callbacks  \(summary.journaledCallbacks) journaled")
                }
            }
        }
    }

    /// `stratus long-lived cancel ID`
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel a long-lived operation.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The operation's ID.") var id: String

        func run() async throws {
            try await Session.with(options) { session in
                guard let operation = try await session.container.longLivedOperation(for: id) else {
                    throw CLIError("unknownItem: no long-lived operation has ID '\(id)'")
                }
                operation.cancel()
                let stillListed = try await session.container.allLongLivedOperationIDs().contains(id)
                if options.json {
                    try Output.json(["cancelled": id])
                } else {
                    Output.line(
                        "cancelled \(id)"
                            + (stillListed ? " (it leaves the list once its cancellation is delivered)" : ""))
                }
            }
        }
    }
}

/// What the tool shows of a long-lived operation: its journal status
/// (`CKContainer.longLivedOperationStatus(for:)`), times in ISO 8601 (UTC).
struct OperationSummary: Encodable {
    var id: String
    var type: String
    /// `private`, `shared` or `public`.
    var database: String
    /// `running` (the work is unfinished: a proxy resumes it) or `completed` (only the
    /// delivery is: a proxy replays it).
    var state: String
    var persistedAt: String
    var finishedAt: String?
    var journaledCallbacks: Int

    init(_ status: LongLivedOperationStatus) {
        let format = Date.ISO8601FormatStyle()
        id = status.operationID
        type = status.operationType
        database = status.databaseScope.description
        state = status.state.rawValue
        persistedAt = status.persistedAt.formatted(format)
        finishedAt = status.finishedAt?.formatted(format)
        journaledCallbacks = status.journaledCallbacks
    }
}
