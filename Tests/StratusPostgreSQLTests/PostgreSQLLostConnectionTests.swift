import StratusBackend
import StratusPostgreSQL
import Testing

/// A transaction's connection terminated at a chosen point of its body (`pg_terminate_backend`
/// with a wait, so the connection is gone before the body goes on): what the backend does
/// about it, deterministically.
@Suite("PostgreSQL lost connections")
struct PostgreSQLLostConnectionTests {
    /// A read's `COMMIT` finds the connection gone. A read-only transaction commits nothing and
    /// every value it read came from its one snapshot, so the body's result stands; the next
    /// transaction connects afresh.
    @Test func aReadWhoseCommitIsLostReturnsWhatItRead() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let fixture = try Fixture(storage)
        defer { fixture.close() }
        try fixture.backend.write { try $0.set([1], [42]) }
        let value = try fixture.backend.read { transaction in
            let value = try transaction.get([1])
            try fixture.terminateConnections()
            return value
        }
        #expect(value == [42])
        #expect(try fixture.backend.read { try $0.get([1]) } == [42])
    }

    /// A read's `COMMIT` is sent without waiting (decision 0023): a one-key read is one round
    /// trip, and the next transaction on the same (only) connection reads the answer first and
    /// runs as usual.
    @Test func aReadsCommitIsAnsweredByTheNextUse() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let fixture = try Fixture(storage)
        defer { fixture.close() }
        try fixture.backend.write { try $0.set([1], [42]) }
        let before = fixture.backend.roundTrips
        #expect(try fixture.backend.read { try $0.get([1]) } == [42])
        #expect(fixture.backend.roundTrips - before == 1)
        try fixture.backend.write { try $0.set([1], [43]) }
        #expect(try fixture.backend.read { try $0.get([1]) } == [43])
        #expect(try fixture.backend.read { try $0.scan(KeyRange(prefix: [1]), limit: 5) }.map(\.value) == [[43]])
    }

    /// The connection of a read whose `COMMIT` answer is still unread is lost while idle: the
    /// next user finds out before sending anything and gets a new connection, and no caller
    /// sees an error.
    @Test func aConnectionLostWhileItsCommitWaitsIsReplaced() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let fixture = try Fixture(storage)
        defer { fixture.close() }
        try fixture.backend.write { try $0.set([1], [42]) }
        #expect(try fixture.backend.read { try $0.get([1]) } == [42])
        try fixture.terminateConnections()
        try fixture.backend.write { try $0.set([2], [7]) }
        #expect(try fixture.backend.read { try $0.getMany([[1], [2]]) } == [[42], [7]])
        try fixture.terminateConnections()
        #expect(try fixture.backend.read { try $0.get([2]) } == [7])
    }

    /// A read body that catches the failure of a read on a lost connection and returns
    /// something else does not get that accepted: the lost connection wins, and the body runs
    /// again on a new connection.
    @Test func aReadBodyCannotHideALostConnection() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let fixture = try Fixture(storage)
        defer { fixture.close() }
        try fixture.backend.write { try $0.set([1], [42]) }
        var runs = 0
        let value = try fixture.backend.read { transaction -> [UInt8]? in
            runs += 1
            _ = try transaction.get([2])
            if runs == 1 { try fixture.terminateConnections() }
            return (try? transaction.get([1])) ?? [0]
        }
        #expect(runs == 2)
        #expect(value == [42])
    }

    /// A write body's connection is lost after its reads, before its `COMMIT` was sent:
    /// nothing was applied, and the backend runs the body again on a new connection, which
    /// commits it once.
    @Test func aWriteWhoseConnectionIsLostBeforeCommitRunsAgain() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let fixture = try Fixture(storage)
        defer { fixture.close() }
        try fixture.backend.write { try $0.set([1], [0]) }
        var runs = 0
        try fixture.backend.write { transaction in
            runs += 1
            let count = try transaction.get([1])?.first ?? 0
            try transaction.set([1], [count + 1])
            if runs == 1 { try fixture.terminateConnections() }
        }
        #expect(runs == 2)
        #expect(try fixture.backend.read { try $0.get([1]) } == [1])
    }

    /// A backend whose connections carry an application name of their own, and an
    /// administrative connection that terminates them.
    private struct Fixture {
        let backend: PostgreSQLBackend
        let admin: PostgreSQLConnection
        let name = "stratus-lost-\(UInt32.random(in: 0...UInt32.max))"

        init(_ storage: PostgreSQLTemporaryStorage) throws {
            var configuration = try PostgreSQLTestServer.configuration(storage, pool: 1)
            configuration.applicationName = name
            backend = try PostgreSQLBackend(configuration: configuration)
            configuration.applicationName = "stratus-lost-admin"
            admin = try PostgreSQLConnection(parameters: configuration.connectionParameters, redact: [])
        }

        /// Terminates the backend's connections and waits (up to 10 s) until they are gone.
        func terminateConnections() throws {
            let results = try admin.run([
                PostgreSQLStatement(
                    "SELECT (count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)))::bigint FROM pg_stat_activity "
                        + "WHERE application_name = $1",
                    [.text(name)])
            ])
            #expect(results[0].integer(row: 0, column: 0) == 1)
        }

        func close() {
            try? backend.close()
            admin.close()
        }
    }
}
