import StratusCLibPQ

/// One `PGresult`, owned: freed with `PQclear` exactly once, when the object goes away.
package final class PostgreSQLResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { PQclear(handle) }

    /// The result's status (`PGRES_TUPLES_OK`, `PGRES_FATAL_ERROR`, …).
    var status: ExecStatusType { PQresultStatus(handle) }

    /// Whether the statement succeeded.
    var succeeded: Bool { status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK }

    /// The five-character SQLSTATE of an error result, if the server sent one.
    var sqlState: String? {
        guard let field = PQresultErrorField(handle, Int32(UInt8(ascii: "C"))) else { return nil }
        return String(cString: field)
    }

    /// The server's primary message of an error result (never stored values: Stratus sends
    /// keys and values only as binary parameters, which the server does not echo).
    var primaryMessage: String? {
        guard let field = PQresultErrorField(handle, Int32(UInt8(ascii: "M"))) else { return nil }
        return String(cString: field)
    }

    /// libpq's message for an error result, first line only: for a failure detected on the
    /// client side (the server closed the connection), which has no primary message or
    /// SQLSTATE, this is the only account of what happened.
    var clientMessage: String? {
        guard let message = PQresultErrorMessage(handle) else { return nil }
        let line = String(cString: message).split(separator: "\n").first.map {
            $0.trimmingPrefix("ERROR:").trimmingPrefix("FATAL:").drop { $0 == " " }
        }
        return line.map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The number of rows.
    var rowCount: Int { Int(PQntuples(handle)) }

    /// The binary value of `column` in `row`, or `nil` for SQL NULL.
    package func bytes(row: Int, column: Int) -> [UInt8]? {
        let r = Int32(row)
        let c = Int32(column)
        if PQgetisnull(handle, r, c) == 1 { return nil }
        let length = Int(PQgetlength(handle, r, c))
        guard length > 0, let pointer = PQgetvalue(handle, r, c) else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The binary `bigint` or `integer` in `column` of `row`, or `nil` for SQL NULL.
    package func integer(row: Int, column: Int) -> Int64? {
        guard let bytes = bytes(row: row, column: column), [2, 4, 8].contains(bytes.count) else { return nil }
        var value: Int64 = bytes[0] >= 0x80 ? -1 : 0
        for byte in bytes { value = (value << 8) | Int64(byte) }
        return value
    }

    /// The binary `boolean` in `column` of `row`.
    package func boolean(row: Int, column: Int) -> Bool? {
        bytes(row: row, column: column).map { $0 == [1] }
    }
}
