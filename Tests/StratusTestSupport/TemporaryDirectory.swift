public import Foundation

/// A new, empty, uniquely named directory under the system's temporary directory.
///
/// Each instance names a directory of its own, so tests running in parallel never share one.
/// Remove it with ``remove()`` when done, or use ``withTemporaryDirectory(prefix:_:)``.
public struct TemporaryDirectory: Sendable {
    /// The directory's location.
    public let url: URL

    /// The directory's file-system path.
    public var path: String { url.path }

    /// Creates a directory named `<prefix>-<UUID>` in the system's temporary directory.
    public init(prefix: String = "stratus") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The location of `name` inside the directory (nothing is created).
    public func appending(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Removes the directory and everything in it. Removing it twice is harmless.
    public func remove() throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a new temporary directory and removes the directory afterwards, whether
/// `body` returns or throws.
public func withTemporaryDirectory<T>(
    prefix: String = "stratus", _ body: (TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory(prefix: prefix)
    do {
        let result = try await body(directory)
        try directory.remove()
        return result
    } catch {
        try? directory.remove()
        throw error
    }
}
