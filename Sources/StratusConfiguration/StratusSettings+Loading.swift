import Configuration
import Foundation
import SystemPackage

extension StratusSettings {
    /// Reads the settings from the environment and a JSON configuration file, the environment
    /// taking precedence.
    ///
    /// - The file is `configFile` if given, else the one `STRATUS_CONFIG` names (both must
    ///   exist), else `stratus.json` in the current directory when there is one. It is a JSON
    ///   object with the keys `backend`, `dataDir`, `container` and `logLevel`, and
    ///   `stratusd`'s (``StratusServerSettings``):
    ///   `{"backend": "sqlite:///var/lib/app/store.sqlite", "container": "iCloud.com.example.app"}`.
    /// - `STRATUS_BACKEND`, `STRATUS_DATA_DIR`, `STRATUS_CONTAINER`, `STRATUS_LOG_LEVEL` and
    ///   the `STRATUS_SERVER_…`, `STRATUS_METRICS_…`, `STRATUS_AUTH_…` and
    ///   `STRATUS_NOTIFICATIONS_…` variables override the file's keys.
    ///
    /// - Parameters:
    ///   - environment: the environment variables to read (the process's by default).
    ///   - configFile: a configuration file to read instead of `STRATUS_CONFIG`'s.
    /// - Throws: ``StratusSettingsError`` for a missing or malformed file, an unknown key or a
    ///   value of the wrong type or out of range (naming the key and where its value came from); `BackendConfigurationError` for a malformed backend URL.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment, configFile: String? = nil
    ) async throws -> StratusSettings {
        let environmentProvider = EnvironmentVariablesProvider(environmentVariables: environment)
            .prefixKeys(with: "stratus")
        var providers: [any ConfigProvider] = [environmentProvider]

        let explicitFile = configFile ?? environment["STRATUS_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let filePath = explicitFile ?? defaultConfigFile
        let fileProvider = try await readFile(filePath, required: explicitFile != nil)
        if let fileProvider { providers.append(fileProvider) }

        let origins = origins(environment: environmentProvider, file: fileProvider.map { (filePath, $0) })
        var settings: StratusSettings
        do {
            settings = try StratusSettings(config: ConfigReader(providers: providers))
        } catch let error as StratusSettingsError {
            let place =
                error.key.flatMap { origins[$0] }.map { " (from \($0))" }
                ?? (fileProvider != nil ? " (in \(filePath) or the environment)" : "")
            throw StratusSettingsError("configuration: \(error.message)" + place, key: error.key)
        }
        settings.configFile = fileProvider != nil ? filePath : nil
        settings.origins = origins
        return settings
    }

    /// Where each key's value comes from: `environment variable STRATUS_…`, the file's path,
    /// or `default`.
    private static func origins(
        environment: some ConfigProvider, file: (path: String, provider: FileProvider<JSONSnapshot>)?
    ) -> [String: String] {
        let environmentOnly = ConfigReader(provider: environment)
        let fileOnly = file.map { ConfigReader(provider: $0.provider) }
        var origins: [String: String] = [:]
        for key in SettingsKey.allCases {
            if isSet(environmentOnly, key) {
                origins[key.rawValue] = "environment variable \(key.environmentVariable)"
            } else if let file, let fileOnly, isSet(fileOnly, key) {
                origins[key.rawValue] = file.path
            } else {
                origins[key.rawValue] = "default"
            }
        }
        return origins
    }

    /// The provider of the JSON file at `path`; `nil` when it does not exist and is not
    /// `required`.
    private static func readFile(_ path: String, required: Bool) async throws -> FileProvider<JSONSnapshot>? {
        guard FileManager.default.fileExists(atPath: path) else {
            if required {
                throw StratusSettingsError("configuration file '\(path)' does not exist")
            }
            return nil
        }
        let provider: FileProvider<JSONSnapshot>
        do {
            provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw StratusSettingsError(
                "configuration file '\(path)' is not a JSON object of strings: \(error)")
        }
        try checkKeys(of: path)
        return provider
    }

    /// Rejects keys the settings do not know (a misspelt `backnd` would otherwise be ignored
    /// in silence). The file has already been parsed by the configuration library; this only
    /// lists its top-level names.
    private static func checkKeys(of path: String) throws {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return }
        let known = SettingsKey.allCases.map(\.rawValue)
        for key in object.keys.sorted() where !known.contains(key) {
            throw StratusSettingsError(
                "configuration file '\(path)' has an unknown key '\(key)'; known keys: \(known.joined(separator: ", "))"
            )
        }
    }
}
