import Foundation

/// What a backend needs from outside for a run: for PostgreSQL, the server to use.
struct TargetSettings: Sendable {
    /// The PostgreSQL server (`postgresql://user@host:port/database`) on which each run creates
    /// a database of its own, or `nil` to start a private server for the run.
    var postgresURL: String?

    /// The settings the environment gives: `STRATUS_BENCH_POSTGRES_URL`.
    static func fromEnvironment() -> TargetSettings {
        let url = ProcessInfo.processInfo.environment["STRATUS_BENCH_POSTGRES_URL"]
        return TargetSettings(postgresURL: url?.isEmpty == false ? url : nil)
    }
}
