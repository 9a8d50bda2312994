import Foundation
import StratusConfiguration
import Testing

/// The credential and notification-log keys (decisions 0013, 0014): defaults, the file, the
/// environment, and errors that name the key, the accepted values and the origin.
@Suite("Configuration: stratusd's auth and notification-log settings")
struct AuthNotificationSettingsTests {
    private func configFile(_ json: String) throws -> String { try TemporaryConfigFile.write(json) }

    /// The error loading `environment` throws.
    private func refusal(_ environment: [String: String]) async -> StratusSettingsError? {
        await #expect(throws: StratusSettingsError.self) { try await StratusSettings.load(environment: environment) }
    }

    @Test func defaults() async throws {
        let server = try await StratusSettings.load(environment: [:]).server
        #expect(server.auth.signInURL == nil)
        #expect(server.auth.sessionTTLSeconds == 30 * 86_400)
        #expect(server.auth.s2sMaxAgeSeconds == 300)
        #expect(server.auth.replayGuard == .backend)
        #expect(server.notifications.retentionSeconds == 7 * 86_400)
        #expect(server.notifications.maxPerUser == 10_000)
    }

    @Test func environmentVariablesSetEveryKey() async throws {
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_AUTH_SIGN_IN_URL": "https://example.com/sign-in", "STRATUS_AUTH_SESSION_TTL_SECONDS": "3600",
            "STRATUS_AUTH_S2S_MAX_AGE_SECONDS": "600", "STRATUS_AUTH_REPLAY_GUARD": "Memory",
            "STRATUS_NOTIFICATIONS_RETENTION_SECONDS": "86400", "STRATUS_NOTIFICATIONS_MAX_PER_USER": "5",
        ])
        let server = settings.server
        #expect(server.auth.signInURL == "https://example.com/sign-in")
        #expect(server.auth.sessionTTLSeconds == 3600 && server.auth.s2sMaxAgeSeconds == 600)
        #expect(server.auth.replayGuard == .memory)
        #expect(server.notifications.retentionSeconds == 86_400 && server.notifications.maxPerUser == 5)
        #expect(settings.origins["authS2sMaxAgeSeconds"] == "environment variable STRATUS_AUTH_S2S_MAX_AGE_SECONDS")
        #expect(
            settings.origins["notificationsMaxPerUser"] == "environment variable STRATUS_NOTIFICATIONS_MAX_PER_USER")
    }

    @Test func theFileSetsThemAndTheEnvironmentWins() async throws {
        let path = try configFile(
            #"{"authSessionTtlSeconds": 86400, "authS2sMaxAgeSeconds": "60", "authReplayGuard": "memory", "#
                + #""notificationsRetentionSeconds": 3600, "notificationsMaxPerUser": 100}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try await StratusSettings.load(
            environment: ["STRATUS_NOTIFICATIONS_MAX_PER_USER": "200"], configFile: path)
        #expect(settings.server.auth.sessionTTLSeconds == 86_400 && settings.server.auth.s2sMaxAgeSeconds == 60)
        #expect(settings.server.auth.replayGuard == .memory)
        #expect(settings.server.notifications.retentionSeconds == 3600)
        #expect(settings.server.notifications.maxPerUser == 200)
        #expect(settings.origins["authSessionTtlSeconds"] == path)
    }

    @Test func valuesOutOfRangeNameTheKeyTheRangeAndTheOrigin() async throws {
        let age = await refusal(["STRATUS_AUTH_S2S_MAX_AGE_SECONDS": "601"])
        #expect(age?.key == "authS2sMaxAgeSeconds")
        #expect(
            age?.message
                == "configuration: 'authS2sMaxAgeSeconds' must be a number of seconds from 1 to 600, got 601 "
                + "(from environment variable STRATUS_AUTH_S2S_MAX_AGE_SECONDS)")
        let ttl = await refusal(["STRATUS_AUTH_SESSION_TTL_SECONDS": "31536001"])
        #expect(ttl?.message.contains("'authSessionTtlSeconds' must be a number of seconds from 1 to 31536000") == true)
        #expect(await refusal(["STRATUS_AUTH_SESSION_TTL_SECONDS": "0"])?.key == "authSessionTtlSeconds")
        #expect(await refusal(["STRATUS_AUTH_S2S_MAX_AGE_SECONDS": "0"])?.key == "authS2sMaxAgeSeconds")
        let size = await refusal(["STRATUS_NOTIFICATIONS_MAX_PER_USER": "0"])
        #expect(
            size?.message.contains("'notificationsMaxPerUser' must be a number of entries from 1 to 1000000") == true)
        let retention = await refusal(["STRATUS_NOTIFICATIONS_RETENTION_SECONDS": "7d"])
        #expect(retention?.message.contains("'notificationsRetentionSeconds' must be a number of seconds") == true)
        #expect(retention?.message.contains("got '7d'") == true)

        let path = try configFile(#"{"notificationsRetentionSeconds": 31536001}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(fromFile?.key == "notificationsRetentionSeconds")
        #expect(fromFile?.message.hasSuffix("(from \(path))") == true, "\(fromFile?.message ?? "")")
    }

    @Test func aBadReplayGuardOrSignInURLIsRefused() async throws {
        let kind = await refusal(["STRATUS_AUTH_REPLAY_GUARD": "redis"])
        #expect(
            kind?.message
                == "configuration: 'authReplayGuard' must be backend or memory, got 'redis' "
                + "(from environment variable STRATUS_AUTH_REPLAY_GUARD)")
        for url in ["/sign-in", "ftp://example.com/x", "https://", "not a url"] {
            let refused = await refusal(["STRATUS_AUTH_SIGN_IN_URL": url])
            #expect(refused?.key == "authSignInUrl", "\(url)")
            #expect(refused?.message.contains("must be an absolute http or https URL") == true, "\(url)")
        }
        let path = try configFile(#"{"authReplayGuard": 1}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let number = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], configFile: path)
        }
        #expect(number?.message.contains("'authReplayGuard' must be a string") == true)
    }
}
