/// The statements one connection has prepared, by SQL text, and the names of those being
/// prepared in the pipeline in flight.
///
/// Only statements with parameters are prepared (`BEGIN`, `COMMIT` and DDL stay unnamed);
/// the backend's SQL texts are a handful per table, and past ``limit`` texts new ones run
/// unnamed, so a caller sending ever-new texts cannot grow a connection's server memory.
/// A name counts as prepared only once the server confirmed its `Prepare`: a pipeline that
/// failed before it (the server skips the rest of a failed pipeline) prepares it again the
/// next time.
struct PostgreSQLPreparedStatements {
    /// The most SQL texts one connection prepares.
    static let limit = 64

    private var names: [String: String] = [:]
    private var pending: [String: String] = [:]
    private var counter = 0

    /// The name to execute `statement` by, and whether it must be prepared first; `nil`:
    /// send it unnamed.
    mutating func name(for statement: PostgreSQLStatement) -> (name: String, isNew: Bool)? {
        guard !statement.parameters.isEmpty else { return nil }
        if let name = names[statement.sql] { return (name, false) }
        if let name = pending[statement.sql] { return (name, false) }
        guard names.count + pending.count < Self.limit else { return nil }
        counter += 1
        let name = "stratus_\(counter)"
        pending[statement.sql] = name
        return (name, true)
    }

    /// The server prepared `name` (for `sql`).
    mutating func confirm(_ name: String, sql: String) {
        pending[sql] = nil
        names[sql] = name
    }

    /// Forgets names whose `Prepare` did not complete (called after each pipeline).
    mutating func dropPending() {
        pending.removeAll()
    }
}
