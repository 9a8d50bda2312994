import Foundation

/// The long-lived operations of a container whose engine is a server's (decision 0016.6): the
/// server persists, runs and journals them (decision 0014.8–9), and this is how the operation
/// layer reaches that journal. Every call is the caller's own: another user's operation ID is
/// simply not there.
package protocol RemoteLongLivedJournal: Sendable {
    /// Persists `submission` as operation `operationID` against the database of `scope`; the
    /// server runs it from then on, whether or not this process stays. Returns once it is
    /// durable.
    func submit(_ operationID: String, scope: CKDatabase.Scope, submission: LongLivedSubmission) throws

    /// The journaled callbacks of `operationID` from sequence `from`, waiting up to `wait`
    /// seconds for the next one while the operation runs and none is there yet.
    func events(_ operationID: String, from: Int64, wait: Double) throws -> RemoteJournalPage

    /// Records that the final callback was delivered: the operation leaves the list.
    func markDelivered(_ operationID: String) throws

    /// Cancels the operation: it leaves the list, and the server's run stops at its next step.
    func cancel(_ operationID: String) throws

    /// The IDs of the caller's outstanding long-lived operations, oldest first.
    func outstandingIDs() throws -> [String]

    /// The outstanding operation `operationID` as submitted, or `nil` when there is none.
    func lookup(_ operationID: String) throws -> RemoteJournalEntry?
}

/// A page of a remote operation's journaled callbacks.
package struct RemoteJournalPage: Sendable {
    /// The callbacks, in the journal's encoding, in order from the asked sequence.
    package var events: [(sequence: Int64, bytes: [UInt8])]
    /// Whether the operation still runs (more callbacks will come).
    package var isRunning: Bool

    package init(events: [(sequence: Int64, bytes: [UInt8])], isRunning: Bool) {
        self.events = events
        self.isRunning = isRunning
    }
}

/// An outstanding remote operation as it was submitted.
package struct RemoteJournalEntry: Sendable {
    package var operationClass: String
    package var scope: CKDatabase.Scope
    package var isRunning: Bool
    /// Callbacks journaled so far.
    package var nextSequence: Int64
    /// The request, in the journal's encoding.
    package var request: [UInt8]
    /// When it was persisted, and when its work finished (`nil` while it runs).
    package var persistedAt: Date
    package var finishedAt: Date?

    package init(
        operationClass: String, scope: CKDatabase.Scope, isRunning: Bool, nextSequence: Int64, request: [UInt8],
        persistedAt: Date, finishedAt: Date?
    ) {
        self.operationClass = operationClass
        self.scope = scope
        self.isRunning = isRunning
        self.nextSequence = nextSequence
        self.request = request
        self.persistedAt = persistedAt
        self.finishedAt = finishedAt
    }
}
