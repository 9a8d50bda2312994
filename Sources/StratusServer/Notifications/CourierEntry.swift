import Foundation
package import Stratus

/// A notification courier token (decision 0014.4), stored as `06 09 (SHA-256(token))`: whose
/// notification log it reads and how far its client has acknowledged.
package struct CourierEntry: Codable, Sendable, Equatable {
    /// The token's public ID (`apnsToken` in `tokens/create`'s answer): hex of the first 8
    /// bytes of its SHA-256.
    package var id: String
    package var container: String
    package var environment: Namespace.Environment
    /// The user whose log the token reads.
    package var userRecordName: String
    /// `development` or `production`, as the client asked.
    package var apnsEnvironment: String
    package var created: Date
    /// The acknowledged position: everything at or below it was received.
    package var cursor: Int64
    /// When the token was last used (updated at most once a day, or with the cursor).
    package var lastPoll: Date

    /// The namespace of the user's log.
    package var namespace: Namespace {
        Namespace(container: container, environment: environment, owner: userRecordName)
    }
}
