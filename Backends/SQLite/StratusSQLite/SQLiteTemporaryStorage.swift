import StratusBackend

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A new temporary directory holding one SQLite store, `store.sqlite`, opened with a URL's
/// options: what ``SQLiteBackendProvider/makeTemporaryStorage(like:)`` makes.
struct SQLiteTemporaryStorage: TemporaryStorage {
    /// The directory, removed by ``destroy()``.
    let directory: String
    /// `sqlite://<directory>/store.sqlite` with the original options.
    let url: BackendURL

    /// Creates a fresh directory under `$TMPDIR` (or `/tmp`).
    init(options: [BackendURL.Option]) throws {
        directory = try FileSystem.makeTemporaryDirectory(prefix: "stratus-sqlite-")
        url = BackendURL(
            scheme: "sqlite", authority: .init(host: ""), path: directory + "/store.sqlite", options: options)
    }

    func open() throws -> any DatabaseBackend {
        try SQLiteBackendProvider().makeBackend(for: url)
    }

    /// Removes the store, its WAL and shared-memory files, and the directory.
    func destroy() throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            _ = unlink(url.path + suffix)
        }
        guard rmdir(directory) == 0 || errno == ENOENT else {
            throw BackendError(.ioError, "cannot remove temporary directory '\(directory)'", nativeCode: Int(errno))
        }
    }
}

/// The few file-system calls the provider needs, without Foundation.
enum FileSystem {
    /// The directory part of `path`: `.` for a bare file name, `/` for a file at the root.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// Creates a new, empty directory named `prefix` and six random characters under
    /// `$TMPDIR` (or `/tmp`), and returns its path.
    static func makeTemporaryDirectory(prefix: String) throws -> String {
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/" + prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!)
        }
        guard made != nil else {
            throw BackendError(
                .ioError, "cannot create a temporary directory in '\(base)'", nativeCode: Int(errno))
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
