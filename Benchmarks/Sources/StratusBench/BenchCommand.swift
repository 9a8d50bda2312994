import ArgumentParser

/// `stratus-bench`: the command line, parsed by swift-argument-parser as `stratus` is.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus-bench",
        abstract: "Stratus's CloudKit operations against the raw API of each backend.",
        discussion: """
            Without a subcommand, runs the benchmark (`run`). Build and run it in release mode from the \
            repository's root; see Docs/Performance.md for what is measured and the latest results.
            """,
        subcommands: [
            RunCommand.self, ReplayCommand.self, ProfileCommand.self, DrainRSSCommand.self, HTTPCommand.self,
            RemoteCommand.self, QueryScaleCommand.self, FloorCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )
}

/// A backend's name as an argument: `sqlite`, `lmdb`, `postgresql` or `memory`.
struct BackendName: ExpressibleByArgument {
    /// The backend.
    let target: any BenchmarkTarget

    init?(argument: String) {
        guard let target = BenchmarkTargets.named(argument) else { return nil }
        self.target = target
    }

    static var allValueStrings: [String] { BenchmarkTargets.all.map(\.name) }
}

/// `--backends sqlite,memory`: a comma-separated list of backend names.
struct BackendList: ExpressibleByArgument {
    /// The backends, in the order given.
    let targets: [any BenchmarkTarget]

    init?(argument: String) {
        let names = argument.split(separator: ",").map(String.init)
        let targets = names.compactMap(BenchmarkTargets.named)
        guard !names.isEmpty, targets.count == names.count else { return nil }
        self.targets = targets
    }

    static var defaultCompletionKind: CompletionKind { .list(BenchmarkTargets.all.map(\.name)) }
}
