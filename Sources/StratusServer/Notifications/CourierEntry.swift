import Foundation
internal import Stratus

/// A notification courier token (decision 0014.4), stored as `06 09 (SHA-256(token))`: whose
/// notification log it reads and how far its client has acknowledged.
struct CourierEntry: Codable, Sendable, Equatable {
    /// The token's public ID (`apnsToken` in `tokens/create`'s answer): hex of the first 8
    /// bytes of its SHA-256.
    var id: String
    var container: String
    var environment: Namespace.Environment
    /// The user whose log the token reads.
    var userRecordName: String
    /// `development` or `production`, as the client asked.
    var apnsEnvironment: String
    var created: Date
    /// The acknowledged position: everything at or below it was received.
    var cursor: Int64
    /// When the token was last used (updated at most once a day, or with the cursor).
    var lastPoll: Date

    /// The namespace of the user's log.
    var namespace: Namespace {
        Namespace(container: container, environment: environment, owner: userRecordName)
    }
}
