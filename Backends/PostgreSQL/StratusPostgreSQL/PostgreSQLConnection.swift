import StratusBackend
import StratusCLibPQ
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection (`PGconn`), used by one thread at a time (the pool hands it to one
/// transaction). Freed with `PQfinish` exactly once — also after a failed connect.
///
/// Statements run in pipeline mode: ``run(_:)`` sends a list of statements and one sync
/// message, then reads every result — one network round trip for the whole list.
///
/// A statement with parameters is prepared (named, `PQsendPrepare`) the first time the
/// connection sends it, in the same pipeline, and executed by name from then on: the server
/// parses and plans the backend's few statements once per connection instead of on every
/// call (``PostgreSQLPreparedStatements``).
package final class PostgreSQLConnection: @unchecked Sendable {
    private(set) var handle: OpaquePointer?
    /// Set once the connection failed in a way that makes it unusable; the pool discards it.
    var isBroken = false
    /// The index, in the last ``run(_:)``'s list, of the statement that failed, or `nil` when
    /// the failure cannot be pinned to one (the connection broke before any result arrived).
    package private(set) var failedStatementIndex: Int?

    /// Counts this connection's round trips (shared by a backend's connections).
    private let roundTrips: RoundTripCounter?
    /// The statements this connection has prepared.
    private var prepared = PostgreSQLPreparedStatements()

    /// Connects with `parameters` (libpq keywords and values; absent keywords fall back to
    /// the `PG*` environment variables). `redact` lists strings (the password) to remove
    /// from any message.
    package init(parameters: [(String, String)], redact: [String], counter: RoundTripCounter? = nil) throws {
        roundTrips = counter
        let keywords = parameters.map { strdup($0.0) } + [nil]
        let values = parameters.map { strdup($0.1) } + [nil]
        defer {
            for pointer in keywords { free(pointer) }
            for pointer in values { free(pointer) }
        }
        let connection = keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { k in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in
                PQconnectdbParams(k.baseAddress, v.baseAddress, 0)
            }
        }
        guard let connection else {
            throw BackendError(.unavailable, "PostgreSQL: libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            var message = PostgreSQLConnection.trimmed(PQerrorMessage(connection))
            for secret in redact where !secret.isEmpty {
                message = message.replacingAll(secret, with: "***")
            }
            PQfinish(connection)
            throw BackendError(.unavailable, "PostgreSQL: cannot connect: \(message)")
        }
        // Notices and warnings (a DROP … CASCADE's list, say) are not printed to stderr.
        _ = PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection (`PQfinish`). Calling it again does nothing.
    package func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        isBroken = true
    }

    /// Whether the connection is idle outside any transaction, so the pool may reuse it.
    var isReusable: Bool {
        guard let handle, !isBroken else { return false }
        if hasPendingCommit { return PQstatus(handle) == CONNECTION_OK }
        return PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Whether a read transaction's `COMMIT` was sent (``commitLater()``) and its result not
    /// read yet: the next use of the connection reads it first (``settle()``).
    private(set) var hasPendingCommit = false

    /// Sends `COMMIT` without waiting for its answer: for a read-only transaction, whose
    /// `COMMIT` has nothing to apply and whose reads were all answered, the answer can wait
    /// until the connection is used again, and the read saves a round trip.
    func commitLater() {
        guard let handle, !isBroken, !hasPendingCommit else { return }
        guard PQenterPipelineMode(handle) == 1,
            send(PostgreSQLStatement("COMMIT"), as: nil, on: handle),
            PQpipelineSync(handle) == 1
        else {
            _ = lost(handle)
            return
        }
        hasPendingCommit = true
    }

    /// Reads the answer of a ``commitLater()`` `COMMIT`, if one is pending; `false` (the
    /// connection marked broken) when the connection failed meanwhile.
    @discardableResult
    func settle() -> Bool {
        guard hasPendingCommit else { return !isBroken }
        hasPendingCommit = false
        guard let handle, !isBroken else { return false }
        guard let raw = PQgetResult(handle) else {
            _ = lost(handle)
            return false
        }
        let status = PQresultStatus(raw)
        PQclear(raw)
        while let extra = PQgetResult(handle) { PQclear(extra) }
        guard status == PGRES_COMMAND_OK, let sync = PQgetResult(handle) else {
            _ = lost(handle)
            return false
        }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1,
            PQtransactionStatus(handle) == PQTRANS_IDLE
        else {
            _ = lost(handle)
            return false
        }
        return true
    }

    /// Runs `statements` in one pipeline (one round trip) and returns their results, in order.
    ///
    /// - Throws: the first failure as a ``BackendError`` classified by SQLSTATE; statements
    ///   after a failed one are not executed. ``failedStatementIndex`` says which failed.
    @discardableResult
    package func run(_ statements: [PostgreSQLStatement]) throws -> [PostgreSQLResult] {
        failedStatementIndex = nil
        settle()
        guard let handle, !isBroken else {
            throw BackendError(.unavailable, "PostgreSQL: the connection was lost")
        }
        guard !statements.isEmpty else { return [] }
        guard PQenterPipelineMode(handle) == 1 else { throw lost(handle) }
        defer { prepared.dropPending() }
        var preparing: [String?] = []
        preparing.reserveCapacity(statements.count)
        for statement in statements {
            let name = prepared.name(for: statement)
            preparing.append(name.flatMap { $0.isNew ? $0.name : nil })
            guard send(statement, as: name, on: handle) else { throw lost(handle) }
        }
        guard PQpipelineSync(handle) == 1 else { throw lost(handle) }
        roundTrips?.count.add(1, ordering: .relaxed)
        return try readResults(of: statements, preparing: preparing, on: handle)
    }

    /// Reads the results of a pipeline: for each statement the result of its `Prepare`, when
    /// it was prepared in this pipeline, then its own; then the sync.
    private func readResults(
        of statements: [PostgreSQLStatement], preparing: [String?], on handle: OpaquePointer
    ) throws -> [PostgreSQLResult] {
        var results: [PostgreSQLResult] = []
        var firstError: BackendError?
        for index in statements.indices {
            if let name = preparing[index] {
                let result = try nextResult(on: handle)
                if result.status == PGRES_COMMAND_OK {
                    prepared.confirm(name, sql: statements[index].sql)
                } else if result.status == PGRES_FATAL_ERROR, firstError == nil {
                    failedStatementIndex = index
                    firstError = try failure(result, on: handle)
                }
            }
            let result = try nextResult(on: handle)
            if result.status == PGRES_FATAL_ERROR, firstError == nil {
                failedStatementIndex = index
                firstError = try failure(result, on: handle)
            }
            results.append(result)
        }
        guard let sync = PQgetResult(handle) else { throw lost(handle) }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else { throw lost(handle) }
        if let firstError { throw firstError }
        return results
    }

    /// The next result of the pipeline, with the null that ends it consumed.
    private func nextResult(on handle: OpaquePointer) throws -> PostgreSQLResult {
        guard let raw = PQgetResult(handle) else { throw lost(handle) }
        let result = PostgreSQLResult(raw)
        while let extra = PQgetResult(handle) { PQclear(extra) }
        return result
    }

    /// The error of a failed result; thrown at once (the connection marked broken) when the
    /// failure ended the connection.
    private func failure(_ result: PostgreSQLResult, on handle: OpaquePointer) throws -> BackendError {
        let failure = error(from: result)
        if PostgreSQLErrorMapping.isConnectionFatal(result.sqlState) || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            throw failure
        }
        return failure
    }

    /// Sends `statement`: by name when it is prepared (first its `Prepare` when `name` is
    /// new), otherwise as an unnamed statement.
    private func send(
        _ statement: PostgreSQLStatement, as name: (name: String, isNew: Bool)?, on handle: OpaquePointer
    ) -> Bool {
        let parameters = statement.parameters
        let types = parameters.map { Oid($0.type) }
        if let name, name.isNew,
            PQsendPrepare(handle, name.name, statement.sql, Int32(parameters.count), types) != 1
        {
            return false
        }
        let lengths = parameters.map { Int32($0.bytes.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // Every parameter's bytes stay alive while libpq copies them into its output buffer.
        let buffers = parameters.map { parameter -> UnsafeMutablePointer<CChar>? in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(parameter.bytes.count, 1))
            parameter.bytes.withUnsafeBufferPointer { source in
                if let base = source.baseAddress {
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: source.count)
                }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        let values = buffers.map { UnsafePointer($0) }
        if let name {
            return PQsendQueryPrepared(handle, name.name, Int32(parameters.count), values, lengths, formats, 1) == 1
        }
        return PQsendQueryParams(
            handle, statement.sql, Int32(parameters.count), types, values, lengths, formats, 1) == 1
    }

    /// The connection failed outside any statement's result: it is broken.
    func lost(_ handle: OpaquePointer) -> BackendError {
        isBroken = true
        return BackendError(
            .unavailable,
            "PostgreSQL: the connection was lost: \(PostgreSQLConnection.trimmed(PQerrorMessage(handle)))")
    }

    private func error(from result: PostgreSQLResult) -> BackendError {
        let state = result.sqlState
        let code = PostgreSQLErrorMapping.code(for: state)
        return BackendError(
            code,
            "PostgreSQL: \(result.primaryMessage ?? result.clientMessage ?? "a statement failed") (SQLSTATE \(state ?? "none"))",
            nativeCode: PostgreSQLErrorMapping.nativeCode(state))
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        var text = String(cString: message)
        while text.last?.isWhitespace == true { text.removeLast() }
        return text.isEmpty ? "unknown error" : text
    }
}

extension String {
    /// This string with every occurrence of `target` replaced (no Foundation).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

/// Round trips made by a backend's connections: what tests measure.
package final class RoundTripCounter: Sendable {
    package let count = Atomic<Int>(0)

    package init() {}
}
