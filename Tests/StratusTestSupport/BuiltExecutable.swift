public import Foundation

/// An executable product of this package (`stratus`, `StratusTestProbe`), which `swift build
/// --build-tests` / `swift test` builds next to the test bundle.
public enum BuiltExecutable {
    /// The executable could not be found.
    public struct NotFound: Error, CustomStringConvertible {
        /// The executable's name.
        public var name: String
        /// The directories that were searched.
        public var searched: [String]
        /// What was searched, for the failure message.
        public var description: String {
            "\(name) was not found. It is built by `swift build --build-tests` / `swift test` next to the "
                + "test bundle; searched: " + searched.joined(separator: ", ")
        }
    }

    /// The executable `name`: in the directory of the running test executable or bundle, or
    /// one of its parents.
    public static func url(named name: String) throws -> URL {
        var starts: [URL] = []
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first).resolvingSymlinksInPath())
        }
        #if os(Linux)
            starts.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath())
        #endif
        if let main = Bundle.main.executableURL { starts.append(main) }
        // On macOS the tests run inside `xctest`, and the bundle is `X.xctest/Contents/MacOS/X`.
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        var searched: [String] = []
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                if !searched.contains(directory.path) { searched.append(directory.path) }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw NotFound(name: name, searched: searched)
    }
}
