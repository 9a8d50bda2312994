import Foundation

/// What `stratusd admin …` did: its exit status, standard output and standard error.
public typealias AdminRun = (status: Int32, output: String, errors: String)

/// Runs `stratusd admin arguments…` in `directory` (its default store is `.stratus/` there).
public func runAdmin(_ arguments: [String], in directory: TemporaryDirectory) throws -> AdminRun {
    let process = Process()
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
    process.waitUntilExit()
    return (
        process.terminationStatus, try String(contentsOf: output, encoding: .utf8),
        try String(contentsOf: errors, encoding: .utf8)
    )
}
