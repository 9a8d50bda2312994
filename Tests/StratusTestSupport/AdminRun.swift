import Foundation

/// What `stratusd admin …` did: its exit status, standard output and standard error.
public typealias AdminRun = (status: Int32, output: String, errors: String)

/// Runs `stratusd admin arguments…` in `directory` (its default store is `.stratus/` there).
public func runAdmin(_ arguments: [String], in directory: TemporaryDirectory) throws -> AdminRun {
    let process = ChildProcess()
    process.executableURL = try BuiltExecutable.url(named: "stratusd")
    process.arguments = ["admin"] + arguments
    process.currentDirectoryURL = directory.url
    let output = directory.appending("out-\(UUID())")
    let errors = directory.appending("err-\(UUID())")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    guard process.waitForExit(within: 300) else {
        process.terminate()
        throw StratusDaemonProcess.StartFailure(
            description: "stratusd admin \(arguments.joined(separator: " ")) took over 5 minutes")
    }
    return (
        process.terminationStatus, try String(contentsOf: output, encoding: .utf8),
        try String(contentsOf: errors, encoding: .utf8)
    )
}

/// What ``provisionStratusd(container:users:in:backendArguments:)`` made: a development API
/// token and one session per user, in the order asked.
public struct StratusdProvision: Sendable {
    /// The container's development API token.
    public var apiToken: String
    /// Each user's development session (web auth token).
    public var sessions: [String]
}

/// Makes `container` (both environments), a development API token and a development session
/// for each of `users` with `stratusd admin`, in the store of `directory` (or the one
/// `backendArguments` name): what a test's server needs before it starts.
///
/// - Throws: `StratusDaemonProcess.StartFailure` with the command's standard error.
public func provisionStratusd(
    container: String, users: [String], in directory: TemporaryDirectory, backendArguments: [String] = []
) throws -> StratusdProvision {
    func admin(_ arguments: [String]) throws -> String {
        let run = try runAdmin(arguments + backendArguments, in: directory)
        guard run.status == 0 else { throw StratusDaemonProcess.StartFailure(description: run.errors) }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    _ = try admin(["container", "create", container])
    let token = try admin(["token", "create", "--container", container, "--environment", "development"])
    let session = ["session", "create", "--container", container, "--environment", "development", "--user"]
    return StratusdProvision(apiToken: token, sessions: try users.map { try admin(session + [$0]) })
}
