import StratusBackend

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new temporary directory holding one LMDB environment, opened with a URL's options: what
/// ``LMDBBackendProvider/makeTemporaryStorage(like:)`` makes.
struct LMDBTemporaryStorage: TemporaryStorage {
    /// The environment's directory, removed by ``destroy()``.
    let directory: String
    /// `lmdb://<directory>` with the original options.
    let url: BackendURL

    /// Creates a fresh directory under `$TMPDIR` (or `/tmp`).
    init(options: [BackendURL.Option]) throws {
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/stratus-lmdb-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw BackendError(.ioError, "cannot create a temporary directory in '\(base)'", nativeCode: Int(errno))
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        url = BackendURL(scheme: "lmdb", authority: .init(host: ""), path: directory, options: options)
    }

    func open() throws -> any DatabaseBackend {
        try LMDBBackendProvider().makeBackend(for: url)
    }

    /// Removes the environment's files and the directory.
    func destroy() throws {
        for file in ["data.mdb", "lock.mdb"] { _ = unlink(directory + "/" + file) }
        guard rmdir(directory) == 0 || errno == ENOENT else {
            throw BackendError(.ioError, "cannot remove temporary directory '\(directory)'", nativeCode: Int(errno))
        }
    }
}
