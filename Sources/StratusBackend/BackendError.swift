/// The one error type backends throw, with a code the engine maps to a `CKError`.
///
/// Backends map their native codes (`SQLITE_BUSY`, `MDB_MAP_FULL`, SQLSTATE `40001`, …) to a
/// ``Code-swift.struct`` once, by code and never by parsing message text. Messages must not
/// contain stored values or credentials.
public struct BackendError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. An open set: new codes may be added without breaking
    /// backends.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case conflict, busy, storageFull, corrupted, unavailable, invalidArgument, closed,
                readOnly, ioError, `internal`
        }
        private let kind: Kind

        /// The transaction could not be serialized with a concurrent one; nothing was applied
        /// and running the body again may succeed. The engine retries it.
        public static let conflict = Code(kind: .conflict)
        /// The store is locked by another connection or process for longer than the backend
        /// waits; nothing was applied. Retryable later.
        public static let busy = Code(kind: .busy)
        /// The disk, the map or a quota is full; nothing was applied.
        public static let storageFull = Code(kind: .storageFull)
        /// The stored data is damaged. Not retryable.
        public static let corrupted = Code(kind: .corrupted)
        /// The storage cannot be reached now (a server down, a connection lost). Retryable.
        public static let unavailable = Code(kind: .unavailable)
        /// The engine passed something the backend cannot store (for example a key over the
        /// backend's size limit).
        public static let invalidArgument = Code(kind: .invalidArgument)
        /// The backend was closed.
        public static let closed = Code(kind: .closed)
        /// The storage is read-only.
        public static let readOnly = Code(kind: .readOnly)
        /// An input/output error from the operating system.
        public static let ioError = Code(kind: .ioError)
        /// Any other failure inside the backend.
        public static let `internal` = Code(kind: .internal)

        /// Whether running the same transaction again later may succeed.
        public var isRetryable: Bool {
            switch kind {
            case .conflict, .busy, .unavailable: return true
            default: return false
            }
        }

        /// A textual description, for logs.
        public var description: String { kind.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people. Never contains stored values or credentials.
    public var message: String
    /// The native error code of the backend's library, if any (`SQLITE_BUSY` = 5, …).
    public var nativeCode: Int?
    /// The error this one wraps, if any.
    public var underlying: (any Error & Sendable)?

    /// An error of `code` saying `message`.
    public init(
        _ code: Code, _ message: String, nativeCode: Int? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.nativeCode = nativeCode
        self.underlying = underlying
    }

    /// A textual description, for logs.
    public var description: String {
        var text = "BackendError(\(code)): \(message)"
        if let nativeCode { text += " [native code \(nativeCode)]" }
        return text
    }
}
