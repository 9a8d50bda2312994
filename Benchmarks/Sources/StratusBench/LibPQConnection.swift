import StratusBenchCLibPQ

/// A bare libpq connection, used by one thread: the PostgreSQL raw baseline and the harness's
/// set-up (the run's database). Closed with `PQfinish` when released.
final class LibPQConnection {
    /// The `PGconn`.
    let handle: OpaquePointer

    /// A failure of libpq or of the server, with its message.
    struct Failure: Error, CustomStringConvertible {
        /// What failed.
        var description: String
    }

    /// Connects with `conninfo`, a libpq connection string or `postgresql://` URI.
    init(_ conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo) else {
            throw Failure(description: "PostgreSQL: libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw Failure(description: "PostgreSQL: cannot connect: \(message)")
        }
        _ = PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// Runs `sql` (no parameters) and checks that it succeeded.
    func execute(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// The first column of the first row of `sql`'s result, as text.
    func value(_ sql: String) throws -> String {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
        guard PQntuples(result) > 0, let text = PQgetvalue(result, 0, 0) else {
            throw Failure(description: "PostgreSQL: \(sql): no row")
        }
        return String(cString: text)
    }

    /// Throws unless `result` is a success (a command or rows).
    func check(_ result: OpaquePointer?, _ what: String) throws {
        let status = PQresultStatus(result)
        guard result != nil, status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw failure(what, result)
        }
    }

    /// The error of `what`: the result's message, else the connection's.
    func failure(_ what: String, _ result: OpaquePointer? = nil) -> Failure {
        let message =
            result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? String(cString: PQerrorMessage(handle))
        return Failure(description: "PostgreSQL: \(what): \(message.trimmingSuffix())")
    }
}

extension String {
    /// The string without trailing newlines and spaces (libpq's messages end in a newline).
    fileprivate func trimmingSuffix() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
