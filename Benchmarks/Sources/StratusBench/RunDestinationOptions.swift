import ArgumentParser

/// Where a run's results go and on which PostgreSQL server its databases are made: the
/// options `run`, `remote` and `queries` share.
struct RunDestinationOptions: ParsableArguments {
    @Option(name: .customLong("out"), help: ArgumentHelp("Where the results go.", valueName: "directory"))
    var outputDirectory = "Benchmarks/results"

    @Option(
        help: ArgumentHelp(
            "A PostgreSQL server on which each run creates a database of its own (default: "
                + "STRATUS_BENCH_POSTGRES_URL, else a private server started for the run).",
            valueName: "postgresql://user@host:port/database"))
    var postgresURL: String?

    /// The environment's settings (`STRATUS_BENCH_POSTGRES_URL`), `--postgres-url` winning.
    var settings: TargetSettings {
        var settings = TargetSettings.fromEnvironment()
        if let postgresURL { settings.postgresURL = postgresURL }
        return settings
    }
}
