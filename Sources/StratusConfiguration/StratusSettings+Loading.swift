import Configuration
import Foundation
import SystemPackage

extension StratusSettings {
    /// Reads the settings from the environment and a JSON configuration file, the environment
    /// taking precedence.
    ///
    /// - The file is `configFile` if given, else the one `STRATUS_CONFIG` names (both must
    ///   exist), else `stratus.json` in the current directory when there is one. It is a JSON
    ///   object with the keys `backend`, `dataDir`, `container` and `logLevel`:
    ///   `{"backend": "sqlite:///var/lib/app/store.sqlite", "container": "iCloud.com.example.app"}`.
    /// - `STRATUS_BACKEND`, `STRATUS_DATA_DIR`, `STRATUS_CONTAINER` and `STRATUS_LOG_LEVEL`
    ///   override the file's keys.
    ///
    /// - Parameters:
    ///   - environment: the environment variables to read (the process's by default).
    ///   - configFile: a configuration file to read instead of `STRATUS_CONFIG`'s.
    /// - Throws: ``StratusSettingsError`` for a missing or malformed file, an unknown key or a
    ///   value of the wrong type; `BackendConfigurationError` for a malformed backend URL.
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

        var settings: StratusSettings
        do {
            settings = try StratusSettings(config: ConfigReader(providers: providers))
        } catch let error as StratusSettingsError {
            throw StratusSettingsError(
                "configuration: \(error.message)" + (fileProvider != nil ? " (in \(filePath) or the environment)" : ""))
        }
        settings.configFile = fileProvider != nil ? filePath : nil
        let environmentOnly = ConfigReader(provider: environmentProvider)
        for key in SettingsKey.allCases {
            let fromEnvironment = environmentOnly.string(forKey: ConfigKey(key.rawValue)).map { !$0.isEmpty } ?? false
            if fromEnvironment {
                settings.origins[key.rawValue] = "environment variable \(key.environmentVariable)"
            } else if let fileProvider,
                ConfigReader(provider: fileProvider).string(forKey: ConfigKey(key.rawValue)) != nil
            {
                settings.origins[key.rawValue] = filePath
            } else {
                settings.origins[key.rawValue] = "default"
            }
        }
        return settings
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
