import StratusBackend
import StratusCLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An `mdb_*` return code and its one mapping to ``BackendError`` (by code, never by text).
struct LMDBStatus: Hashable, Sendable, CustomStringConvertible {
    /// The code as LMDB returned it: `MDB_*` (negative) or an `errno` value (positive).
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Throws the mapped error for `code` unless it is `MDB_SUCCESS`.
    static func check(_ code: Int32, _ action: @autoclosure () -> String) throws {
        guard code != MDB_SUCCESS else { return }
        throw LMDBStatus(code).error(action())
    }

    /// The ``BackendError`` code this status maps to.
    var backendCode: BackendError.Code {
        switch rawValue {
        case MDB_MAP_FULL: return .storageFull
        case MDB_READERS_FULL, MDB_MAP_RESIZED: return .busy
        case MDB_CORRUPTED, MDB_PANIC, MDB_PAGE_NOTFOUND, MDB_INVALID: return .corrupted
        case MDB_BAD_VALSIZE, MDB_TXN_FULL, MDB_CURSOR_FULL: return .invalidArgument
        case MDB_VERSION_MISMATCH, MDB_INCOMPATIBLE: return .unavailable
        case ENOSPC, EDQUOT, ENOMEM: return .storageFull
        case EACCES, EROFS, EPERM: return .readOnly
        case ENOENT, ENOTDIR: return .unavailable
        case EAGAIN, EBUSY: return .busy
        case EIO: return .ioError
        case let code where code > 0: return .ioError
        default: return .internal
        }
    }

    /// LMDB's text for the code (`mdb_strerror`, which also covers `errno` values).
    var description: String {
        guard let text = mdb_strerror(rawValue) else { return "LMDB status \(rawValue)" }
        return String(cString: text)
    }

    /// The ``BackendError`` for this status, raised while doing `action`.
    func error(_ action: String) -> BackendError {
        BackendError(backendCode, "LMDB: \(action): \(description)", nativeCode: Int(rawValue))
    }
}
