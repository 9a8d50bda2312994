import Foundation
import StratusTestSupport

/// A machine as the README's quick start meets it, made of stand-ins: a `PATH` whose
/// `pkg-config` and `dpkg-query` report chosen libraries missing, whose `apt-get` and `swift`
/// only record how they were called, and whose `id` says who we are. The scripts under test are
/// this checkout's own; everything they run is found through that `PATH`.
struct FreshMachine {
    /// Who runs the command, and what the machine lacks.
    struct Setup {
        /// `id -u`'s answer: 0 for root.
        var userID = 0
        /// pkg-config modules (`sqlite3`, `lmdb`, `libpq`) that pkg-config reports missing.
        var missingModules: Set<String> = []
        /// Debian packages that dpkg-query reports not installed.
        var missingPackages: Set<String> = []
        /// Whether `pkg-config` itself is on the `PATH`.
        var hasPKGConfig = true
        /// Whether the stand-in `apt-get` fails.
        var aptGetFails = false
    }

    /// What one run of a script did.
    struct Outcome {
        var status: Int32
        var errorOutput: String
        /// The stand-ins' calls, in order: `apt-get update -qq`, `swift run …`; the arguments of
        /// each call are separated by single spaces.
        var calls: [String]

        /// The calls of `tool` (`apt-get`, `swift`).
        func calls(of tool: String) -> [String] { calls.filter { $0.hasPrefix(tool + " ") } }

        /// The position of the first call that starts with `prefix`.
        func firstCall(_ prefix: String) -> Int? { calls.firstIndex { $0.hasPrefix(prefix) } }
    }

    /// The checkout the tests were built from.
    static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Real tools the scripts use, linked into the stand-in `PATH`.
    private static let realTools = [
        "bash", "dirname", "grep", "cat", "git", "xargs", "date", "mktemp", "rm", "setsid", "tee", "cut", "tail",
    ]

    /// The commands of the README's "Quick start" block: the run command, then the test command.
    static func quickStartCommands() throws -> [String] {
        let readme = try String(contentsOf: package.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "## Quick start"),
            let open = readme.range(of: "```sh\n", range: start.upperBound..<readme.endIndex),
            let close = readme.range(of: "```", range: open.upperBound..<readme.endIndex)
        else { return [] }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map {
            String($0.split(separator: "#", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// Runs `command` (a line as the README gives it, words separated by spaces) from the
    /// package's directory on a machine set up as `setup` says.
    static func run(_ command: String, _ setup: Setup, environment: [String: String] = [:]) throws -> Outcome {
        let directory = try TemporaryDirectory(prefix: "stratus-fresh")
        defer { try? directory.remove() }
        let bin = directory.appending("bin")
        try makeStandIns(in: bin, setup)
        let log = directory.appending("calls.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let errorFile = directory.appending("stderr")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)

        let words = command.split(separator: " ").map(String.init)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = words
        process.currentDirectoryURL = package
        process.environment = environment.merging(
            ["PATH": bin.path, "HOME": directory.path, "STANDIN_LOG": log.path, "TMPDIR": directory.path],
            uniquingKeysWith: { $1 })
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard process.waitForExit(within: 600) else {
            process.terminate()
            throw CocoaError(
                .executableLoad, userInfo: [NSLocalizedDescriptionKey: "the fresh-machine run took over 10 minutes"])
        }
        let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        return Outcome(
            status: process.terminationStatus,
            errorOutput: try String(contentsOf: errorFile, encoding: .utf8), calls: calls)
    }

    /// Writes the stand-ins for `setup` into `bin`.
    private static func makeStandIns(in bin: URL, _ setup: Setup) throws {
        let files = FileManager.default
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        for tool in realTools {
            guard let real = ["/usr/bin/", "/bin/"].map({ $0 + tool }).first(where: files.isExecutableFile(atPath:))
            else { continue }
            try files.createSymbolicLink(atPath: bin.appendingPathComponent(tool).path, withDestinationPath: real)
        }
        var scripts: [String: String] = [
            "id": "echo \(setup.userID)",
            "apt-get": "record apt-get \"$@\"\nexit \(setup.aptGetFails ? 100 : 0)",
            "swift": "record swift \"$@\"",
            "dpkg-query": """
            record dpkg-query "$@"
            for package in \(setup.missingPackages.sorted().joined(separator: " ")); do
                [ "${@: -1}" = "$package" ] && exit 1
            done
            echo 'install ok installed'
            """,
        ]
        if setup.hasPKGConfig {
            scripts["pkg-config"] = """
                record pkg-config "$@"
                for module in \(setup.missingModules.sorted().joined(separator: " ")); do
                    [ "${@: -1}" = "$module" ] && exit 1
                done
                exit 0
                """
        }
        for (name, body) in scripts {
            let text = "#!/bin/bash\nrecord() { echo \"$*\" >>\"$STANDIN_LOG\"; }\n\(body)\n"
            let path = bin.appendingPathComponent(name).path
            _ = files.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o755])
        }
    }
}
