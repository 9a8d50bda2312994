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
                for id in ids.sorted() {
                    let operation = try await session.container.longLivedOperation(for: id)
                    operations.append(OperationSummary(id: id, operation: operation))
                }
                if options.json {
                    try Output.json(operations)
                } else if operations.isEmpty {
                    Output.status("no long-lived operations\n")
                } else {
                    for summary in operations { Output.line("\(summary.id)  \(summary.type)") }
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
                guard let operation = try await session.container.longLivedOperation(for: id) else {
                    throw CLIError("unknownItem: no long-lived operation has ID '\(id)'")
                }
                let summary = OperationSummary(id: id, operation: operation)
                if options.json {
                    try Output.json(summary)
                } else {
                    Output.line("id         \(summary.id)")
                    Output.line("type       \(summary.type)")
                    Output.line("long-lived \(summary.isLongLived)")
                    Output.line("finished   \(summary.isFinished)")
                    Output.line("cancelled  \(summary.isCancelled)")
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

/// What the tool shows of a long-lived operation.
struct OperationSummary: Encodable {
    var id: String
    var type: String
    var isLongLived: Bool
    var isFinished: Bool
    var isCancelled: Bool

    init(id: String, operation: CKOperation?) {
        self.id = id
        self.type = operation.map { String(describing: Swift.type(of: $0)) } ?? "unknown"
        self.isLongLived = operation?.configuration.isLongLived ?? true
        self.isFinished = operation?.isFinished ?? false
        self.isCancelled = operation?.isCancelled ?? false
    }
}
