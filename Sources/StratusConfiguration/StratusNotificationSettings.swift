public import Configuration

/// How much of each user's notification log `stratusd` keeps (decision 0014.2),
/// ``StratusServerSettings/notifications``.
///
/// | Key | Environment variable | Default |
/// |---|---|---|
/// | `notificationsRetentionSeconds` | `STRATUS_NOTIFICATIONS_RETENTION_SECONDS` | 604,800 (7 days), at most 365 days |
/// | `notificationsMaxPerUser` | `STRATUS_NOTIFICATIONS_MAX_PER_USER` | 10,000, at most 1,000,000 |
public struct StratusNotificationSettings: Sendable, Hashable {
    /// How long an unacknowledged entry is kept when not configured: 7 days.
    public static let defaultRetentionSeconds = 7 * 86_400
    /// The longest retention the setting accepts: 365 days.
    public static let maximumRetentionSeconds = 365 * 86_400
    /// The most entries kept per user when not configured.
    public static let defaultMaxPerUser = 10_000
    /// The largest per-user limit the setting accepts.
    public static let maximumMaxPerUser = 1_000_000

    /// Seconds an unacknowledged entry is kept (`notificationsRetentionSeconds`).
    public var retentionSeconds: Int
    /// The most entries kept per user, the oldest dropped first (`notificationsMaxPerUser`).
    public var maxPerUser: Int

    /// Settings with the defaults above.
    public init() {
        retentionSeconds = Self.defaultRetentionSeconds
        maxPerUser = Self.defaultMaxPerUser
    }

    /// Settings read from `config`: the keys in the table above.
    ///
    /// - Throws: ``StratusSettingsError`` naming the key and the accepted range when a value
    ///   is not a whole number or is out of range.
    public init(config: ConfigReader) throws {
        self.init()
        retentionSeconds =
            try StratusServerSettings.integer(
                config, .notificationsRetentionSeconds, in: 1...Self.maximumRetentionSeconds) ?? retentionSeconds
        maxPerUser =
            try StratusServerSettings.integer(config, .notificationsMaxPerUser, in: 1...Self.maximumMaxPerUser)
            ?? maxPerUser
    }
}
