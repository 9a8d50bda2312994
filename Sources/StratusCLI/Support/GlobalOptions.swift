import ArgumentParser
import Stratus

/// The options every data command takes: which backend or server, container and database,
/// and the output format. Names follow `cktool` where it has one (`--container-id`,
/// `--database-type`).
struct GlobalOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The backend URL, overriding STRATUS_BACKEND and the configuration file.", valueName: "url"))
    var backend: String?

    @Option(
        help: ArgumentHelp(
            "A stratusd's http or https URL: the container is remote, on that server (overriding STRATUS_SERVER and a configured backend). Credentials come from --credentials-file or STRATUS_SERVER_CREDENTIALS_FILE, never from an option.",
            valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("credentials-file"),
        help: ArgumentHelp(
            #"The JSON file of --server's credentials, {"apiToken": …, "webAuthToken": …}, overriding STRATUS_SERVER_CREDENTIALS_FILE."#,
            valueName: "path"))
    var credentialsFile: String?

    @Option(
        name: [.customLong("container"), .customLong("container-id")],
        help: ArgumentHelp("The container identifier (default: the configured one, iCloud.default).", valueName: "id"))
    var container: String?

    @Option(
        help: ArgumentHelp(
            "The container environment, development (the default) or production: each has its own data and schema (see Docs/SchemaLanguage.md).",
            valueName: "environment"))
    var environment: EnvironmentArgument?

    @Option(
        name: [.customLong("database"), .customLong("database-type")],
        help: "The database: private, public or shared.")
    var database: DatabaseScope = .private

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp("A configuration file to read instead of STRATUS_CONFIG's.", valueName: "file"))
    var configFile: String?

    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "How much to log to standard error, overriding STRATUS_LOG_LEVEL (default: warning; see Docs/Logging.md).",
            valueName: "level"))
    var logLevel: LogLevelArgument?
}

/// A container environment as an argument (cktool's `--environment`).
enum EnvironmentArgument: String, ExpressibleByArgument, CaseIterable {
    case development, production

    var environment: CKContainer.Environment { self == .production ? .production : .development }
}

/// A database scope as an argument.
enum DatabaseScope: String, ExpressibleByArgument, CaseIterable {
    case `private`, `public`, shared

    var scope: CKDatabase.Scope {
        switch self {
        case .private: return .private
        case .public: return .public
        case .shared: return .shared
        }
    }
}

/// The `--zone` option of commands that work in one zone.
struct ZoneOption: ParsableArguments {
    @Option(
        name: [.customLong("zone"), .customLong("zone-name")],
        help: ArgumentHelp("The zone (default: _defaultZone).", valueName: "name"))
    var zone: String = CKRecordZone.ID.defaultZoneName

    var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: zone, ownerName: CKCurrentUserDefaultName) }
}

extension GlobalOptions {
    /// The global options that may also come before the subcommand (`stratus --backend URL
    /// zones list`), with whether each takes a value.
    private static let leadingOptions: [String: Bool] = [
        "--backend": true, "--container": true, "--container-id": true, "--database": true,
        "--database-type": true, "--environment": true, "--config": true, "--json": false, "--log-level": true,
        "--server": true,
        "--credentials-file": true,
    ]

    /// `arguments` with global options given before the subcommand moved after it, where the
    /// subcommand's parser reads them.
    static func hoisting(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--") {
            let name = String(first.split(separator: "=", maxSplits: 1)[0])
            guard let takesValue = leadingOptions[name] else { break }
            leading.append(first)
            rest = rest.dropFirst()
            if takesValue && !first.contains("="), let value = rest.first {
                leading.append(value)
                rest = rest.dropFirst()
            }
        }
        guard !leading.isEmpty else { return arguments }
        var result = Array(rest)
        let end = result.firstIndex(of: "--") ?? result.endIndex
        result.insert(contentsOf: leading, at: end)
        return result
    }
}
