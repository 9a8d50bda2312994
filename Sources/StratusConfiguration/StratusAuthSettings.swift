public import Configuration
import Foundation

/// `stratusd`'s credential settings (decision 0013), ``StratusServerSettings/auth``.
///
/// | Key | Environment variable | Default |
/// |---|---|---|
/// | `authSignInUrl` | `STRATUS_AUTH_SIGN_IN_URL` | not set: a 421 carries no `redirectURL` |
/// | `authSessionTtlSeconds` | `STRATUS_AUTH_SESSION_TTL_SECONDS` | 2,592,000 (30 days), at most 365 days |
/// | `authS2sMaxAgeSeconds` | `STRATUS_AUTH_S2S_MAX_AGE_SECONDS` | 300, at most 600 |
/// | `authReplayGuard` | `STRATUS_AUTH_REPLAY_GUARD` | `backend` (or `memory`) |
public struct StratusAuthSettings: Sendable, Hashable {
    /// Where the replay guard of signed requests keeps what it has seen (decision 0013.6).
    public enum ReplayGuard: String, Sendable, Hashable, CaseIterable {
        /// In the store: a replay to any stratusd on the same store is refused.
        case backend
        /// In this process's memory, bounded: valid only when a single stratusd serves the store.
        case memory
    }

    /// A session's lifetime when neither the request nor the command asks for one: 30 days.
    public static let defaultSessionTTLSeconds = 30 * 86_400
    /// The longest session lifetime the setting accepts: 365 days.
    public static let maximumSessionTTLSeconds = 365 * 86_400
    /// How old a signed request's date may be when not configured: 300 s.
    public static let defaultS2SMaxAgeSeconds = 300
    /// The largest accepted signed-request age: 600 s, Apple's 10 minutes.
    public static let maximumS2SMaxAgeSeconds = 600

    /// The sign-in page a 421 `AUTHENTICATION_REQUIRED` answer names as `redirectURL`
    /// (`authSignInUrl`); `nil` for none.
    public var signInURL: String?
    /// Seconds a session lives when none is asked for (`authSessionTtlSeconds`).
    public var sessionTTLSeconds: Int
    /// How many seconds before the server's clock a signed request's date may lie
    /// (`authS2sMaxAgeSeconds`).
    public var s2sMaxAgeSeconds: Int
    /// Where the replay guard keeps signatures it has seen (`authReplayGuard`).
    public var replayGuard: ReplayGuard

    /// Settings with the defaults above.
    public init() {
        sessionTTLSeconds = Self.defaultSessionTTLSeconds
        s2sMaxAgeSeconds = Self.defaultS2SMaxAgeSeconds
        replayGuard = .backend
    }

    /// Settings read from `config`: the keys in the table above.
    ///
    /// - Throws: ``StratusSettingsError`` naming the key and the accepted values when a value
    ///   has the wrong type or is out of range.
    public init(config: ConfigReader) throws {
        self.init()
        signInURL = try Self.url(config, .authSignInUrl)
        sessionTTLSeconds =
            try StratusServerSettings.integer(config, .authSessionTtlSeconds, in: 1...Self.maximumSessionTTLSeconds)
            ?? sessionTTLSeconds
        s2sMaxAgeSeconds =
            try StratusServerSettings.integer(config, .authS2sMaxAgeSeconds, in: 1...Self.maximumS2SMaxAgeSeconds)
            ?? s2sMaxAgeSeconds
        if let text = try StratusSettings.string(config, .authReplayGuard) {
            guard let kind = ReplayGuard(rawValue: text.lowercased()) else {
                let key = SettingsKey.authReplayGuard
                throw StratusSettingsError("'\(key.rawValue)' must be \(key.summary), got '\(text)'", key: key.rawValue)
            }
            replayGuard = kind
        }
    }

    /// The absolute `http` or `https` URL at `key`, `nil` when unset.
    private static func url(_ config: ConfigReader, _ key: SettingsKey) throws -> String? {
        guard let text = try StratusSettings.string(config, key) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else {
            throw StratusSettingsError("'\(key.rawValue)' must be \(key.summary), got '\(text)'", key: key.rawValue)
        }
        return text
    }
}
