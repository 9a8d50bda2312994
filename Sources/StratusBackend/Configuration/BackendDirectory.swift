#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Directories of file-based backends: what a ``BackendProvider`` calls to create the
/// directory its store lives in, with every missing parent, before it opens the store.
///
/// ```swift
/// try BackendDirectory.create("data/store.lmdb", for: url)   // creates data/ and data/store.lmdb/
/// ```
public enum BackendDirectory {
    /// Creates the directory at `path` and its missing parents (mode `0755`, less the umask);
    /// an existing directory is left as it is.
    ///
    /// - Parameters:
    ///   - path: an absolute path, or one relative to the current directory.
    ///   - url: the URL naming the store, for the error.
    /// - Throws: ``BackendConfigurationError`` with code
    ///   ``BackendConfigurationError/Code-swift.struct/invalidLocation`` naming `path` and
    ///   why it cannot be created: a part of it that is a file, permission denied, ….
    public static func create(_ path: String, for url: BackendURL) throws {
        guard !path.isEmpty, !isDirectory(path) else { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if let reason = makeOne(prefix) {
                let part = prefix == path || reason.hasPrefix("'") ? "" : "'\(prefix)': "
                throw BackendConfigurationError.invalidLocation(
                    url, "cannot create the directory '\(path)': \(part)\(reason)")
            }
            prefix += "/"
        }
    }

    /// Creates the one directory `path` if it is missing; `nil` on success, else why not.
    private static func makeOne(_ path: String) -> String? {
        if mkdir(path, 0o755) == 0 { return nil }
        let error = errno
        if error == EEXIST {
            return isDirectory(path) ? nil : "'\(path)' exists and is not a directory"
        }
        if isDirectory(path) { return nil }  // `..`, or a mount point mkdir refuses with EACCES
        return String(cString: strerror(error))
    }

    /// Whether `path` is an existing directory (following symbolic links).
    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }
}
