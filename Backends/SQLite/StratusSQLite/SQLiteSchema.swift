import StratusBackend

/// The on-disk format of a Stratus SQLite store, created and checked when the store opens.
///
/// A store is one table, `kv(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID`. The
/// file header carries `PRAGMA application_id` (marks the file as a Stratus store) and
/// `PRAGMA user_version` (the format version).
enum SQLiteSchema {
    /// `PRAGMA application_id` of a Stratus store: "STRT" in ASCII.
    static let applicationID: Int64 = 0x5354_5254
    /// The format version this build writes and reads.
    static let formatVersion: Int64 = 1

    /// Creates the table and marks the file on a new store, or checks that an existing store
    /// is one this build can use.
    ///
    /// An existing store of this format is recognized from the file header alone, without the
    /// write lock, so opening it never waits for another process's write. Anything else is
    /// decided in one `BEGIN IMMEDIATE` transaction, so two processes creating a new file at
    /// once do not race.
    static func prepare(_ connection: SQLiteConnection) throws {
        let application = try connection.queryInteger("PRAGMA application_id") ?? 0
        let version = try connection.queryInteger("PRAGMA user_version") ?? 0
        if application == applicationID, (1...formatVersion).contains(version) { return }
        try connection.begin(immediate: true)
        do {
            let application = try connection.queryInteger("PRAGMA application_id") ?? 0
            let version = try connection.queryInteger("PRAGMA user_version") ?? 0
            switch (application, version) {
            case (0, 0), (applicationID, 0):
                let others = try connection.queryInteger(
                    "SELECT count(*) FROM sqlite_master WHERE name <> 'kv' AND name NOT LIKE 'sqlite_%'")
                guard others ?? 0 == 0 else {
                    throw BackendError(
                        .invalidArgument, "SQLite: the file is a SQLite database but not a Stratus store")
                }
                try connection.execute(
                    "CREATE TABLE IF NOT EXISTS kv(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID")
                try connection.execute("PRAGMA application_id=\(applicationID)")
                try connection.execute("PRAGMA user_version=\(formatVersion)")
            case (applicationID, 1...formatVersion):
                break
            case (applicationID, _):
                throw BackendError(
                    .invalidArgument,
                    "SQLite: the store has format version \(version); this build reads versions 1 to \(formatVersion)")
            default:
                throw BackendError(
                    .invalidArgument,
                    "SQLite: the file is a SQLite database of another application (application_id \(application))")
            }
            try connection.commit()
        } catch {
            connection.rollbackAfterFailure()
            throw error
        }
    }
}
