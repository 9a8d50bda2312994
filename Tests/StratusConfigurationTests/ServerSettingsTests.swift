import Foundation
import StratusConfiguration
import Testing

/// `stratusd`'s keys: defaults, the file, the environment, and errors that name the key and
/// where its value came from.
@Suite("Configuration: stratusd's listeners and limits")
struct ServerSettingsTests {
    private func configFile(_ json: String) throws -> String { try TemporaryConfigFile.write(json) }

    @Test func defaults() async throws {
        let server = try await StratusSettings.load(environment: [:]).server
        #expect(server.host == "127.0.0.1" && server.port == 8080)
        #expect(server.tlsCertificateFile == nil && server.tlsKeyFile == nil)
        #expect(server.maxBodyBytes == 16 * 1024 * 1024)
        #expect(server.maxConnections == 1024)
        #expect(server.maxBufferedBodyBytes == 256 * 1024 * 1024)
        #expect(server.metricsHost == "127.0.0.1" && server.metricsPort == 9464)
        #expect(server.metricsBearerTokenFile == nil)
    }

    @Test func environmentVariablesSetEveryKey() async throws {
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER_HOST": "0.0.0.0", "STRATUS_SERVER_PORT": "8443",
            "STRATUS_SERVER_TLS_CERTIFICATE": "/etc/stratus/cert.pem", "STRATUS_SERVER_TLS_KEY": "/etc/stratus/key.pem",
            "STRATUS_SERVER_MAX_BODY_BYTES": "1048576", "STRATUS_SERVER_MAX_CONNECTIONS": "64",
            "STRATUS_SERVER_MAX_BUFFERED_BODY_BYTES": "33554432",
            "STRATUS_METRICS_HOST": "::1", "STRATUS_METRICS_PORT": "9100",
            "STRATUS_METRICS_BEARER_TOKEN_FILE": "/etc/stratus/metrics-token",
        ])
        let server = settings.server
        #expect(server.host == "0.0.0.0" && server.port == 8443)
        #expect(server.tlsCertificateFile == "/etc/stratus/cert.pem" && server.tlsKeyFile == "/etc/stratus/key.pem")
        #expect(server.maxBodyBytes == 1_048_576 && server.maxConnections == 64)
        #expect(server.maxBufferedBodyBytes == 33_554_432)
        #expect(server.metricsHost == "::1" && server.metricsPort == 9100)
        #expect(server.metricsBearerTokenFile == "/etc/stratus/metrics-token")
        #expect(settings.origins["serverTlsKey"] == "environment variable STRATUS_SERVER_TLS_KEY")
        #expect(settings.origins["metricsBearerTokenFile"] == "environment variable STRATUS_METRICS_BEARER_TOKEN_FILE")
    }

    @Test func theFileTakesNumbersOrStringsAndTheEnvironmentWins() async throws {
        let path = try configFile(#"{"serverPort": 9000, "metricsPort": "9465", "serverHost": "10.0.0.5"}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try await StratusSettings.load(
            environment: ["STRATUS_SERVER_HOST": "127.0.0.2"], configFile: path)
        #expect(settings.server.port == 9000 && settings.server.metricsPort == 9465)
        #expect(settings.server.host == "127.0.0.2")
        #expect(settings.origins["serverPort"] == path, "a number in the file is recorded as coming from it")
        #expect(settings.origins["serverHost"] == "environment variable STRATUS_SERVER_HOST")
        #expect(settings.origins["metricsHost"] == "default")
    }

    @Test func aPortOutOfRangeNamesTheKeyAndWhereItCameFrom() async throws {
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_SERVER_PORT": "70000"])
        }
        #expect(error?.key == "serverPort")
        #expect(
            error?.message
                == "configuration: 'serverPort' must be a port number from 0 to 65535; 0 picks a free one, got 70000 "
                + "(from environment variable STRATUS_SERVER_PORT)")

        let path = try configFile(#"{"metricsPort": -1}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(fromFile?.message.contains("'metricsPort'") == true)
        #expect(fromFile?.message.hasSuffix("(from \(path))") == true, "\(fromFile?.message ?? "")")
    }

    @Test func notANumberOrNotAStringIsAnError() async throws {
        let words = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_SERVER_MAX_BODY_BYTES": "16MiB"])
        }
        #expect(
            words?.message.contains("'serverMaxBodyBytes' must be a number of bytes, at least 1, got '16MiB'") == true)
        let zero = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_SERVER_MAX_CONNECTIONS": "0"])
        }
        #expect(zero?.key == "serverMaxConnections")

        let path = try configFile(#"{"serverTlsCertificate": 5}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let number = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(number?.message.contains("'serverTlsCertificate' must be a string") == true)
        #expect(number?.message.hasSuffix("(from \(path))") == true)
    }
}
