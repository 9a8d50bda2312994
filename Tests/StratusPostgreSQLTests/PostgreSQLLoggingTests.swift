import Foundation
import Stratus
import StratusBackend
import StratusPostgreSQL
import StratusTestSupport
import Synchronization
import Testing

/// What the PostgreSQL backend and the engine over it log (`Docs/Logging.md`): the store opened
/// without its password, a lost connection and the reconnect, a real serialization failure
/// retried by the engine.
@Suite("PostgreSQL logging")
struct PostgreSQLLoggingTests {
    /// A password the test server (trust authentication) accepts and ignores.
    static let password = "pw-9d4e1b-secret"

    @Test func storeOpenedNamesTheServerWithoutThePassword() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        var configuration = try PostgreSQLTestServer.configuration(storage)
        configuration.password = Self.password
        let capture = LogCapture()
        let backend = try PostgreSQLBackend(configuration: configuration, logger: capture.logger)
        defer { try? backend.close() }
        let container = CKContainer(identifier: "iCloud.test.pg", backend: backend, logger: capture.logger)
        _ = try await container.privateCloudDatabase.allRecordZones()

        let opened = try #require(capture.entries(message: "store opened").first)
        #expect(opened.level == .info)
        #expect(opened.value(LogKey.backend) == "postgresql")
        let location = try #require(opened.value(LogKey.location))
        #expect(location.hasPrefix("postgresql://"))
        #expect(location.contains(":***@"))
        #expect(location.contains("schema=\(configuration.schema)"))
        #expect(!capture.mentions(Self.password))
    }

    @Test func aLostConnectionAndTheReconnectAreWarnings() throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        var configuration = try PostgreSQLTestServer.configuration(storage, pool: 1)
        configuration.password = Self.password
        configuration.applicationName = "stratus-log-\(UInt32.random(in: 0...UInt32.max))"
        let capture = LogCapture()
        let backend = try PostgreSQLBackend(configuration: configuration, logger: capture.logger)
        defer { try? backend.close() }
        var admin = configuration
        admin.applicationName = "stratus-log-admin"

        var runs = 0
        try backend.write { transaction in
            runs += 1
            _ = try transaction.get([1])
            try transaction.set([1], [1])
            if runs == 1 { try Self.terminate(configuration.applicationName, as: admin) }
        }
        #expect(runs == 2)
        let lost = try #require(
            capture.entries(
                message: "PostgreSQL connection lost before the commit; reconnecting and running the transaction again"
            ).first)
        #expect(lost.level == .warning)
        #expect(lost.value(LogKey.attempt) == "1")
        #expect(lost.value(LogKey.maximumAttempts) == "3")
        let reconnected = try #require(capture.entries(message: "PostgreSQL reconnected after a lost connection").first)
        #expect(reconnected.level == .warning)
        #expect(reconnected.value(LogKey.location)?.contains(":***@") == true)
        #expect(!capture.mentions(Self.password))
    }

    @Test func aServerThatCannotBeReachedIsAWarningWithoutThePassword() throws {
        let capture = LogCapture()
        // Port 1 on the loopback: nothing listens, the connection is refused at once.
        let configuration = PostgreSQLBackend.Configuration(
            host: "127.0.0.1", port: 1, user: "stratus", password: Self.password, database: "app")
        let error = #expect(throws: BackendError.self) {
            _ = try PostgreSQLBackend(configuration: configuration, logger: capture.logger)
        }
        #expect(error?.code == .unavailable)
        let refused = try #require(capture.entries(message: "PostgreSQL cannot connect; the transaction fails").first)
        #expect(refused.level == .warning)
        #expect(refused.value(LogKey.error) == "unavailable")
        #expect(refused.value(LogKey.location) == "postgresql://stratus:***@127.0.0.1:1/app?schema=stratus")
        #expect(capture.entries(message: "store opened").isEmpty)
        #expect(!capture.mentions(Self.password))
    }

    /// A modify whose transaction meets a real serialization failure (SQLSTATE 40001): another
    /// handle rewrites the rows the modify wrote, between the modify's reads and its `COMMIT`.
    @Test func aSerializationFailureRetriedByTheEngineIsLogged() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let configuration = try PostgreSQLTestServer.configuration(storage)
        let base = try PostgreSQLBackend(configuration: configuration)
        let other = try PostgreSQLBackend(configuration: configuration)
        defer {
            try? base.close()
            try? other.close()
        }
        let interference = Interference(other: other)
        let capture = LogCapture()
        let container = CKContainer(
            identifier: "iCloud.test.pg", backend: WrappingBackend(base: base, hooks: interference.hooks),
            logger: capture.logger)
        let database = container.privateCloudDatabase
        let zoneID = try await database.save(CKRecordZone(zoneName: "Z")).zoneID
        let first = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "a", zoneID: zoneID))
        _ = try await database.save(first)

        interference.arm()
        _ = try await database.save(
            CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "b", zoneID: zoneID)))
        #expect(interference.interfered)
        let retry = try #require(capture.entries(message: "write transaction conflicted; running it again").first)
        #expect(retry.value(LogKey.error) == "conflict")
        #expect(retry.value(LogKey.attempt) == "1")
        #expect(!capture.entries(message: "write transaction committed after retrying on conflicts").isEmpty)
    }

    /// Terminates the connections named `applicationName` and waits until they are gone.
    static func terminate(_ applicationName: String, as admin: PostgreSQLBackend.Configuration) throws {
        let connection = try PostgreSQLConnection(parameters: admin.connectionParameters, redact: [])
        defer { connection.close() }
        let results = try connection.run([
            PostgreSQLStatement(
                "SELECT (count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)))::bigint FROM pg_stat_activity "
                    + "WHERE application_name = $1",
                [.text(applicationName)])
        ])
        #expect(results[0].integer(row: 0, column: 0) == 1)
    }

    /// Once armed, the next write's keys are rewritten (same values) by another handle after the
    /// write's body ran and before it commits, so its `COMMIT` meets rows changed since its
    /// snapshot.
    final class Interference: Sendable {
        private struct State {
            var armed = false
            var interfered = false
            var written: [[UInt8]] = []
        }
        private let state = Mutex(State())
        let other: PostgreSQLBackend

        init(other: PostgreSQLBackend) { self.other = other }

        func arm() { state.withLock { $0.armed = true } }
        var interfered: Bool { state.withLock { $0.interfered } }

        var hooks: BackendHooks {
            var hooks = BackendHooks()
            hooks.set = { [self] transaction, key, value in
                state.withLock { $0.written.append(key) }
                try transaction.set(key, value)
            }
            hooks.write = { [self] base, body in
                state.withLock { $0.written = [] }
                try base.write { transaction in
                    try body(transaction)
                    try interfereOnce()
                }
            }
            return hooks
        }

        private func interfereOnce() throws {
            let keys = state.withLock { state -> [[UInt8]]? in
                guard state.armed else { return nil }
                state.armed = false
                return state.written
            }
            guard let keys else { return }
            let rewritten = try other.write { transaction in
                var count = 0
                for key in keys {
                    if let value = try transaction.get(key) {
                        try transaction.set(key, value)
                        count += 1
                    }
                }
                return count
            }
            state.withLock { $0.interfered = rewritten > 0 }
        }
    }
}
