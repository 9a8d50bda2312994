import Foundation
import StratusBackend
import StratusConfiguration
import Testing

/// A temporary directory with a configuration file in it.
private struct ConfigDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-config-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the directory and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

@Suite("Configuration: file, environment, defaults")
struct SettingsTests {
    @Test func defaultsWithNothingConfigured() async throws {
        let settings = try await StratusSettings.load(environment: [:])
        #expect(settings.usesDefaultBackend)
        #expect(settings.backend.string == "sqlite:.stratus/stratus.sqlite")
        #expect(settings.dataDirectory == ".stratus")
        #expect(settings.containerIdentifier == "iCloud.default")
        #expect(settings.configFile == nil)
        #expect(
            settings.origins.keys.sorted() == [
                "authReplayGuard", "authS2sMaxAgeSeconds", "authSessionTtlSeconds", "authSignInUrl",
                "backend", "container", "dataDir", "environment", "logLevel", "metricsBearerTokenFile", "metricsHost",
                "metricsPort",
                "notificationsMaxPerUser", "notificationsRetentionSeconds", "remoteAssetCacheBytes",
                "server", "serverCredentialsFile", "serverHost", "serverMaxAssetBytes", "serverMaxBodyBytes",
                "serverMaxBufferedBodyBytes", "serverMaxConnections", "serverPort",
                "serverTlsCertificate", "serverTlsKey",
            ])
        #expect(Set(settings.origins.values) == ["default"])
    }

    @Test func environmentVariables() async throws {
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_BACKEND": "memory:", "STRATUS_DATA_DIR": "/var/lib/x", "STRATUS_CONTAINER": "iCloud.com.example",
        ])
        #expect(settings.backend.string == "memory:")
        #expect(settings.dataDirectory == "/var/lib/x")
        #expect(settings.containerIdentifier == "iCloud.com.example")
        #expect(settings.origins["backend"] == "environment variable STRATUS_BACKEND")
        #expect(settings.origins["dataDir"] == "environment variable STRATUS_DATA_DIR")
    }

    @Test func dataDirectoryMovesTheDefaultStore() async throws {
        let absolute = try await StratusSettings.load(environment: ["STRATUS_DATA_DIR": "/srv/stratus/"])
        #expect(absolute.backend.string == "sqlite:///srv/stratus/stratus.sqlite")
        let relative = try await StratusSettings.load(environment: ["STRATUS_DATA_DIR": "data"])
        #expect(relative.backend.string == "sqlite:data/stratus.sqlite")
    }

    @Test func fileThenEnvironmentOverrides() async throws {
        let directory = try ConfigDirectory()
        defer { directory.remove() }
        let path = try directory.file(
            "stratus.json", #"{"backend": "sqlite:///srv/app.sqlite?durability=normal", "container": "iCloud.file"}"#)
        let fromFile = try await StratusSettings.load(environment: ["STRATUS_CONFIG": path])
        #expect(fromFile.backend.string == "sqlite:///srv/app.sqlite?durability=normal")
        #expect(fromFile.containerIdentifier == "iCloud.file")
        #expect(fromFile.configFile == path)
        #expect(fromFile.origins["backend"] == path)
        #expect(fromFile.origins["dataDir"] == "default")

        let overridden = try await StratusSettings.load(environment: [
            "STRATUS_CONFIG": path, "STRATUS_BACKEND": "memory:",
        ])
        #expect(overridden.backend.string == "memory:")
        #expect(overridden.containerIdentifier == "iCloud.file")

        let explicit = try await StratusSettings.load(environment: [:], configFile: path)
        #expect(explicit.containerIdentifier == "iCloud.file")
    }

    @Test func emptyValuesCountAsUnset() async throws {
        let settings = try await StratusSettings.load(environment: ["STRATUS_BACKEND": "", "STRATUS_CONFIG": ""])
        #expect(settings.usesDefaultBackend)
    }

    @Test func missingNamedFileIsAnError() async throws {
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_CONFIG": "/no/such/stratus.json"])
        }
        #expect(error?.message == "configuration file '/no/such/stratus.json' does not exist")
    }

    @Test func malformedFileIsAnError() async throws {
        let directory = try ConfigDirectory()
        defer { directory.remove() }
        let path = try directory.file("bad.json", #"{"backend": "#)
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(error?.message.hasPrefix("configuration file '\(path)' is not a JSON object of strings") == true)
    }

    @Test func unknownKeyIsAnError() async throws {
        let directory = try ConfigDirectory()
        defer { directory.remove() }
        let path = try directory.file("typo.json", #"{"backnd": "memory:"}"#)
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(
            error?.message
                == "configuration file '\(path)' has an unknown key 'backnd'; known keys: backend, dataDir, container, environment, logLevel, "
                + "server, serverCredentialsFile, remoteAssetCacheBytes, serverHost, serverPort, serverTlsCertificate, serverTlsKey, serverMaxBodyBytes, serverMaxAssetBytes, "
                + "serverMaxConnections, serverMaxBufferedBodyBytes, "
                + "metricsHost, metricsPort, metricsBearerTokenFile, "
                + "authSignInUrl, authSessionTtlSeconds, authS2sMaxAgeSeconds, authReplayGuard, "
                + "notificationsRetentionSeconds, notificationsMaxPerUser"
        )
    }

    @Test func wrongTypeIsAnError() async throws {
        let directory = try ConfigDirectory()
        defer { directory.remove() }
        let path = try directory.file("number.json", #"{"backend": 42}"#)
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(error?.message.contains("'backend' must be a string") == true, "\(error?.message ?? "")")
    }

    @Test func malformedBackendURLIsAnError() async throws {
        let error = await #expect(throws: BackendConfigurationError.self) {
            try await StratusSettings.load(environment: ["STRATUS_BACKEND": "no-scheme"])
        }
        #expect(error?.code == .malformedURL)
    }
}
