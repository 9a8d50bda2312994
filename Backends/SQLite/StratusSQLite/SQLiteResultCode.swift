import StratusBackend
import StratusCSQLite

/// A SQLite result code, primary or extended, and its mapping to ``BackendError``.
///
/// The mapping reads codes only, never message text.
struct SQLiteResultCode: Hashable, Sendable, CustomStringConvertible {
    /// The code as SQLite returned it (extended codes are enabled on every connection).
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low 8 bits of an extended code.
    var primary: Int32 { rawValue & 0xFF }

    /// The ``BackendError`` code this result maps to.
    var backendCode: BackendError.Code {
        switch primary {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_FULL: return .storageFull
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupted
        case SQLITE_READONLY: return .readOnly
        case SQLITE_IOERR: return .ioError
        case SQLITE_CANTOPEN: return .unavailable
        case SQLITE_TOOBIG: return .invalidArgument
        default: return .internal
        }
    }

    /// SQLite's generic English text for the code (`sqlite3_errstr`).
    var description: String {
        guard let text = sqlite3_errstr(rawValue) else { return "SQLite result code \(rawValue)" }
        return String(cString: text)
    }

    /// The ``BackendError`` for this code, raised while doing `action`.
    ///
    /// The message is SQLite's message for the connection `db` when it still describes this
    /// code, else the generic text of the code. SQLite messages name statements, tables and
    /// columns but never bound values, so no key or value bytes reach the message.
    func error(_ action: String, db: OpaquePointer? = nil) -> BackendError {
        var detail = description
        if let db, sqlite3_extended_errcode(db) == rawValue, let text = sqlite3_errmsg(db) {
            detail = String(cString: text)
        }
        return BackendError(backendCode, "SQLite: \(action): \(detail)", nativeCode: Int(rawValue))
    }
}
