import Foundation
import StratusBackend
import StratusConfiguration
import Testing

@Suite("Configuration: the log level")
struct LogLevelSettingTests {
    @Test func unsetByDefault() async throws {
        let settings = try await StratusSettings.load(environment: [:])
        #expect(settings.logLevel == nil)
    }

    @Test func fromTheEnvironment() async throws {
        let settings = try await StratusSettings.load(environment: ["STRATUS_LOG_LEVEL": "debug"])
        #expect(settings.logLevel == .debug)
        #expect(settings.origins["logLevel"] == "environment variable STRATUS_LOG_LEVEL")
    }

    @Test func fromTheFileOverriddenByTheEnvironment() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-loglevel-\(UUID()).json").path
        try #"{"logLevel": "info"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try await StratusSettings.load(environment: ["STRATUS_CONFIG": path]).logLevel == .info)
        let overridden = try await StratusSettings.load(environment: [
            "STRATUS_CONFIG": path, "STRATUS_LOG_LEVEL": "ERROR",
        ])
        #expect(overridden.logLevel == .error)
    }

    @Test func anInvalidLevelNamesTheAcceptedOnes() async throws {
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_LOG_LEVEL": "loud"])
        }
        #expect(
            error?.message
                == "configuration: invalid log level 'loud'; accepted: trace, debug, info, notice, warning, error, critical"
        )
    }
}
