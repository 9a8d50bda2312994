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
    ///   `STRATUS_SERVER`, `STRATUS_SERVER_CREDENTIALS_FILE`, the `STRATUS_SERVER_…`,
    ///   `STRATUS_METRICS_…`, `STRATUS_AUTH_…` and `STRATUS_NOTIFICATIONS_…` variables
    ///   override the file's keys.
    /// - `overrides` override both.
    ///
    /// - Parameters:
    ///   - environment: the environment variables to read (the process's by default).
    ///   - configFile: a configuration file to read instead of `STRATUS_CONFIG`'s.
    ///   - overrides: values of configuration keys given another way, such as the `stratus`
    ///     tool's `--server`, keyed by configuration key (`server`); an empty value unsets the
    ///     key. Their origin is `overridesOrigin`.
    ///   - overridesOrigin: where `overrides` come from, for ``origins`` and error messages.
    /// - Throws: ``StratusSettingsError`` for a missing or malformed file, an unknown key or a
    ///   value of the wrong type or out of range (naming the key and where its value came from); `BackendConfigurationError` for a malformed backend URL.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment, configFile: String? = nil,
        overrides: [String: String] = [:], overridesOrigin: String = "the command line"
    ) async throws -> StratusSettings {
        let environmentProvider = EnvironmentVariablesProvider(environmentVariables: environment)
            .prefixKeys(with: "stratus")
        let overrideProvider = try overridesProvider(overrides)
        var providers: [any ConfigProvider] = [overrideProvider, environmentProvider]

        let explicitFile = configFile ?? environment["STRATUS_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let filePath = explicitFile ?? defaultConfigFile
        let fileProvider = try await readFile(filePath, required: explicitFile != nil)
        if let fileProvider { providers.append(fileProvider) }

        var origins = origins(environment: environmentProvider, file: fileProvider.map { (filePath, $0) })
        for key in overrides.keys { origins[key] = overridesOrigin }
        var settings: StratusSettings
        do {
            settings = try StratusSettings(config: ConfigReader(providers: providers))
        } catch let error as StratusSettingsError {
            throw error.located(by: origins, fallback: fileProvider != nil ? "in \(filePath) or the environment" : nil)
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

    /// The provider of `overrides`, read as the environment's strings are.
    ///
    /// - Throws: ``StratusSettingsError`` for a key the settings do not know.
    private static func overridesProvider(_ overrides: [String: String]) throws -> some ConfigProvider {
        var variables: [String: String] = [:]
        for (name, value) in overrides {
            guard let key = SettingsKey(rawValue: name) else {
                throw StratusSettingsError("configuration: there is no key '\(name)' to override")
            }
            variables[key.environmentVariable] = value
        }
        return EnvironmentVariablesProvider(environmentVariables: variables).prefixKeys(with: "stratus")
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

extension StratusSettingsError {
    /// This error prefixed with `configuration:` and followed by where its keys' values came
    /// from (`fallback` when it names no key).
    func located(by origins: [String: String], fallback: String?) -> StratusSettingsError {
        var place = fallback.map { " (\($0))" } ?? ""
        if let key, let origin = origins[key] {
            place = " (from \(origin))"
            if let otherKey, let other = origins[otherKey] {
                place = " ('\(key)' from \(origin), '\(otherKey)' from \(other))"
            }
        }
        var located = StratusSettingsError("configuration: \(message)" + place, key: key)
        located.otherKey = otherKey
        return located
    }
}
