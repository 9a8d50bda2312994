import Foundation
import StratusBackend
import StratusPostgreSQL
import StratusTestSupport
import Testing

/// A connection prepares each parameterized statement once and runs it by name after,
/// never relies on a `Prepare` the server skipped, and prepares a bounded number.
@Suite("PostgreSQL prepared statements")
struct PostgreSQLPreparedStatementTests {
    private static let countPrepared = PostgreSQLStatement(
        "SELECT count(*)::bigint FROM pg_prepared_statements WHERE name LIKE 'stratus\\_%'")

    /// Runs `body` with a new connection to a new store on the test server, then closes the
    /// connection and drops the store.
    private static func withConnection(_ body: (PostgreSQLConnection) throws -> Void) throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let connection = try PostgreSQLConnection(
            parameters: PostgreSQLTestServer.configuration(storage).connectionParameters, redact: [])
        defer { connection.close() }
        try body(connection)
    }

    private func prepared(_ connection: PostgreSQLConnection) throws -> Int64 {
        try connection.run([Self.countPrepared])[0].integer(row: 0, column: 0) ?? -1
    }

    @Test func aStatementIsPreparedOnceAndAnsweredByNameAfter() throws {
        try Self.withConnection { connection throws in
            #expect(try prepared(connection) == 0)
            for value in 1...3 {
                let twice = try connection.run([
                    PostgreSQLStatement("SELECT $1::bigint + 1", [.int8(Int64(value))]),
                    PostgreSQLStatement("SELECT $1::bigint + 1", [.int8(Int64(value * 10))]),
                ])
                #expect(twice.map { $0.integer(row: 0, column: 0) } == [Int64(value + 1), Int64(value * 10 + 1)])
                #expect(try prepared(connection) == 1)
            }
        }
    }

    @Test func aPrepareSkippedByAFailedPipelineIsSentAgain() throws {
        try Self.withConnection { connection throws in
            let statement = PostgreSQLStatement("SELECT $1::bigint * 2", [.int8(21)])
            #expect(throws: BackendError.self) {
                try connection.run([PostgreSQLStatement("SELECT 1/0"), statement])
            }
            #expect(connection.failedStatementIndex == 0)
            #expect(try prepared(connection) == 0)
            #expect(try connection.run([statement])[0].integer(row: 0, column: 0) == 42)
            #expect(try prepared(connection) == 1)
        }
    }

    @Test func aFailingStatementFailsAtItsOwnIndexAndLeavesTheConnectionUsable() throws {
        try Self.withConnection { connection throws in
            let bad = PostgreSQLStatement("SELECT $1::bigint / 0", [.int8(1)])
            for _ in 0..<2 {
                #expect(throws: BackendError.self) {
                    try connection.run([PostgreSQLStatement("SELECT $1::bigint", [.int8(1)]), bad])
                }
                #expect(connection.failedStatementIndex == 1)
            }
            #expect(
                try connection.run([PostgreSQLStatement("SELECT $1::bigint", [.int8(7)])])[0].integer(row: 0, column: 0)
                    == 7)
        }
    }

    /// The backend's statements run on generic plans, never planned again per execution
    /// (`PostgreSQLBackend.sessionSettings`): with PostgreSQL's default, the first five
    /// executions of every prepared statement are planned anew, and some statements always are.
    @Test func theBackendsStatementsRunOnGenericPlans() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let backend = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage, pool: 1))
        defer { try? backend.close() }
        for index in 0..<8 {
            let key: [UInt8] = [7, UInt8(index)]
            try backend.write { transaction in
                _ = try transaction.getMany([key, [7, 255]])
                try transaction.set(key, [UInt8(index)])
            }
            let read = try backend.read { transaction in
                (try transaction.get(key), try transaction.scan(KeyRange(prefix: [7]), limit: 100).count)
            }
            #expect(read.0 == [UInt8(index)] && read.1 == index + 1)
        }
        let plans = try backend.withPooledConnection { connection in
            try connection.run([
                PostgreSQLStatement(
                    "SELECT coalesce(sum(generic_plans), 0)::bigint, coalesce(sum(custom_plans), 0)::bigint "
                        + "FROM pg_prepared_statements WHERE name LIKE 'stratus\\_%'")
            ])[0]
        }
        #expect((plans.integer(row: 0, column: 0) ?? 0) >= 8, "generic plans")
        #expect(plans.integer(row: 0, column: 1) == 0, "custom plans")
    }

    /// The setting goes after the user's own `PGOPTIONS`, which an explicit `options` would
    /// otherwise replace.
    @Test func theSessionOptionsKeepPGOPTIONS() {
        let own = "-c plan_cache_mode=force_generic_plan"
        #expect(PostgreSQLBackend.sessionOptions(environment: nil) == own)
        #expect(PostgreSQLBackend.sessionOptions(environment: "  ") == own)
        #expect(PostgreSQLBackend.sessionOptions(environment: "-c work_mem=8MB") == "-c work_mem=8MB " + own)
    }

    @Test func aConnectionPreparesAtMostItsLimit() throws {
        try Self.withConnection { connection throws in
            for index in 0..<80 {
                let result = try connection.run([PostgreSQLStatement("SELECT $1::bigint + \(index)", [.int8(1)])])
                #expect(result[0].integer(row: 0, column: 0) == Int64(index + 1))
            }
            #expect(try prepared(connection) == 64)
        }
    }
}
