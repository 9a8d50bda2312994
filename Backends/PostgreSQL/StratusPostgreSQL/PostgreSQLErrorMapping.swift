import StratusBackend

/// SQLSTATE → ``BackendError/Code-swift.struct``: the one place PostgreSQL errors are
/// classified. By code, never by message text.
package enum PostgreSQLErrorMapping {
    /// The code for `sqlState` (`nil` when the server sent none: a client-side failure).
    package static func code(for sqlState: String?) -> BackendError.Code {
        guard let sqlState else { return .unavailable }
        switch sqlState {
        case "40001", "40P01": return .conflict  // serialization failure, deadlock
        case "55P03": return .busy  // lock not available
        case "53100": return .storageFull  // disk full
        case "53200", "53300", "53400": return .unavailable  // out of memory, too many connections
        case "25006": return .readOnly  // read-only SQL transaction
        case "58030": return .ioError
        case "XX001", "XX002": return .corrupted  // data or index corrupted
        case "54000", "54001", "22001", "22003": return .invalidArgument  // too large (an index row, say)
        default: break
        }
        switch sqlState.prefix(2) {
        case "08": return .unavailable  // connection exception
        case "57": return .unavailable  // operator intervention: shutdown, terminated, cannot connect now
        case "40": return .conflict  // other transaction rollbacks
        case "53": return .unavailable  // other insufficient resources
        case "22": return .invalidArgument  // data exception
        default: return .internal
        }
    }

    /// Whether `sqlState` means the connection is gone (or going): it must not be reused.
    static func isConnectionFatal(_ sqlState: String?) -> Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57")
    }

    /// A SQLSTATE as a number for ``BackendError/nativeCode``: its five characters in base 36
    /// (`40001` → 6_718_465), as PostgreSQL's own `MAKE_SQLSTATE` packs them into an integer
    /// differently; ``BackendError/message`` always names the SQLSTATE itself.
    static func nativeCode(_ sqlState: String?) -> Int? {
        sqlState.flatMap { Int($0, radix: 36) }
    }
}
