import Foundation

/// A long-lived operation submitted to stratusd, as its journal header says (decision 0014).
package struct HostedOperationStatus: Sendable, Equatable {
    /// Where the operation is in its life.
    package enum State: String, Sendable {
        case running, completed, delivered, cancelled
    }

    package var operationID: String
    package var operationClass: String
    package var state: State
    /// Callbacks journaled so far; the next one gets this sequence number.
    package var nextSequence: Int64
    /// Whether it is listed (`isLongLived`), or an unlisted idempotent modify.
    package var isListed: Bool
    /// The target database's namespace and the caller; `nil` for an embedded operation.
    package var target: JournalTarget?
    /// The target database's scope.
    package var scope: CKDatabase.Scope?
    /// When it was persisted, and when its work finished (`nil` while it runs): the journal's
    /// clock, seconds since 1970.
    package var persistedAt: Double
    package var finishedAt: Double?

    init(_ id: String, _ header: JournalHeader) {
        operationID = id
        operationClass = header.kind
        switch header.state {
        case .running: state = .running
        case .completed: state = .completed
        case .delivered: state = .delivered
        case .cancelled: state = .cancelled
        }
        nextSequence = header.nextSequence
        isListed = header.isListed
        target = header.target
        scope = CKDatabase.Scope(rawValue: header.scope)
        persistedAt = header.createdAt
        finishedAt = header.finishedAt
    }
}
