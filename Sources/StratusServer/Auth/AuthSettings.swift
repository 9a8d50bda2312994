import Foundation

extension StratusServer {
    /// Credential settings (decision 0013): what `stratusd` reads from `authSignInUrl`,
    /// `authSessionTtlSeconds`, `authS2sMaxAgeSeconds` and `authReplayGuard`.
    public struct AuthSettings: Sendable {
        /// Where the replay guard of signed requests keeps the signatures it has seen.
        public enum ReplayGuard: Sendable, Equatable {
            /// In the store, shared by every stratusd on it (decision 0013.6).
            case backend
            /// In this process, at most `capacity` signatures inside the window: valid only
            /// when a single stratusd serves the store.
            case memory(capacity: Int)
        }

        /// The signatures the in-memory guard holds at most by default: three minutes of
        /// 1,000 signed requests a second, or 300 a second over the longest window.
        public static let defaultMemoryCapacity = 200_000

        /// The page a 421 `AUTHENTICATION_REQUIRED` answer names as `redirectURL`; `nil` for none.
        public var signInURL: String?
        /// A session's lifetime when `sessions/create` asks for none: 30 days.
        public var sessionTTL: TimeInterval = 30 * 86_400
        /// How old a signed request's date may be: 300 s (clamped to 1…600).
        public var signatureMaxAge: TimeInterval = 300
        /// Where signatures seen are kept: the store.
        public var replayGuard: ReplayGuard = .backend

        /// The defaults: no sign-in URL, 30-day sessions, a 300 s window, the stored guard.
        public init() {}
    }

    /// How much of each user's notification log is kept (decision 0014.2):
    /// `notificationsRetentionSeconds`, `notificationsMaxPerUser`.
    public struct NotificationLogSettings: Sendable {
        /// How long an unacknowledged entry is kept: 7 days.
        public var retention: TimeInterval = 7 * 86_400
        /// The most entries kept per user, the oldest dropped first: 10,000.
        public var maximumEntriesPerUser: Int = 10_000

        /// The defaults: 7 days, 10,000 entries.
        public init() {}
    }
}
