/// The metadata keys Stratus logs with: one scheme, `stratus.<subject>[.<detail>]`, for the
/// engine and every backend (`Docs/Logging.md` lists them with their values).
///
/// Values are identifiers, counts, durations and error codes. Stratus never logs a record's
/// field values or content, a password, or a connection string with a password; a location is
/// always a `BackendURL`'s password-free ``BackendURL/description``.
///
/// ```swift
/// logger.debug("operation finished", metadata: [LogKey.operationID: "\(operationID)"])
/// ```
public enum LogKey {
    /// The `operationID` of the CloudKit operation the line is about.
    public static let operationID = "stratus.operation.id"
    /// The operation's class, such as `CKModifyRecordsOperation`.
    public static let operationKind = "stratus.operation.kind"
    /// `true` when the operation is long-lived (journaled).
    public static let longLived = "stratus.operation.long_lived"
    /// The container identifier.
    public static let container = "stratus.container"
    /// The database scope: `private`, `public` or `shared`.
    public static let database = "stratus.database"
    /// One zone's name.
    public static let zone = "stratus.zone"
    /// Zone names, as a list.
    public static let zones = "stratus.zones"
    /// How many items: requested (at an operation's start) or delivered (at its end).
    public static let count = "stratus.count"
    /// How many items failed (per-item errors delivered at an operation's end).
    public static let failedCount = "stratus.failed_count"
    /// How long something took, in milliseconds (with three decimals).
    public static let durationMilliseconds = "stratus.duration_ms"
    /// An error's code: a `CKError` code name or a `BackendError` code.
    public static let error = "stratus.error"
    /// Which attempt of a transaction this is, counting from 1.
    public static let attempt = "stratus.attempt"
    /// The most attempts a transaction gets.
    public static let maximumAttempts = "stratus.attempts_max"
    /// The backend's kind: `sqlite`, `lmdb`, `postgresql`, …
    public static let backend = "stratus.backend"
    /// Where the store is, without a password: a `BackendURL`'s ``BackendURL/description``.
    public static let location = "stratus.location"
    /// A size in bytes (an LMDB map before it grows).
    public static let sizeBytes = "stratus.size_bytes"
    /// The new size in bytes (an LMDB map after it grows).
    public static let newSizeBytes = "stratus.new_size_bytes"
    /// The position of a callback in a long-lived operation's journal.
    public static let journalSequence = "stratus.journal.sequence"
    /// Why something was decided, as one word: a read-ahead discarded because of a `write`,
    /// another `zone` or `token`, or `unused`.
    public static let reason = "stratus.reason"
}

extension Logger.MetadataValue {
    /// `duration` in milliseconds with three decimals, such as `12.345`: the value of
    /// ``LogKey/durationMilliseconds``.
    public static func milliseconds(_ duration: Duration) -> Logger.MetadataValue {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return .string(
            "\(sign)\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction)
    }
}
