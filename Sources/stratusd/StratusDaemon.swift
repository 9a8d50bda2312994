import ArgumentParser
import StratusServer

/// `stratusd`: the self-hosted CloudKit server (decision 0012). `stratusd` alone serves the
/// configured store on 127.0.0.1 (`serve`); `stratusd admin` manages containers and
/// credentials in it.
@main
struct StratusDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratusd",
        abstract: "A self-hosted CloudKit server over a Stratus backend.",
        discussion: """
            Serves the configured backend (STRATUS_BACKEND, the configuration file, or SQLite in \
            ./.stratus/). GET /health answers without credentials; every other request needs them. \
            See Docs/Server.md.
            """,
        version: "0.1.0",
        subcommands: [ServeCommand.self, AdminCommand.self],
        defaultSubcommand: ServeCommand.self)

    /// Runs the command, its answers' buffers in the heap
    /// (``StratusServer/keepAnswerBuffersInHeap()``). Its tasks run on Swift Concurrency's
    /// default pool, not on SwiftNIO's event loops: decision 0012.5 says why.
    static func main() async {
        StratusServer.keepAnswerBuffersInHeap()
        await Self.main(nil)
    }
}
