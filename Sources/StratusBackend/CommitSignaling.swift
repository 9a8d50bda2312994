/// An optional backend capability: signals that reach listeners — in this process and in
/// others using the same store — only when the write transaction that sent them commits
/// (decision 0014.6).
///
/// The engine signals a notification log's number when a commit appends to it, so a server
/// process waiting on that log wakes at once instead of at its next poll. Signals are an
/// accelerator, never the only way a listener learns of a change: they may be lost (a listener
/// reconnecting), so listeners also poll, and ``CommitSignal/reconnected`` tells them when to
/// poll at once. Backends confined to one machine need not offer signals.
public protocol CommitSignaling: DatabaseBackend {
    /// The signals sent on `channel` by committed transactions, from now on, until the
    /// consumer stops iterating. After the backend lost and regained its listening
    /// connection, ``CommitSignal/reconnected`` comes first: signals of that gap are lost.
    func signals(channel: String) -> AsyncStream<CommitSignal>
}

/// A write transaction of a ``CommitSignaling`` backend.
public protocol SignalingWriteTransaction: BackendWriteTransaction {
    /// Sends `payload` on `channel` if, and only if, this transaction commits. A body that
    /// runs again after a conflict sends again from its new run only.
    func signal(channel: String, payload: String) throws
}

/// What a ``CommitSignaling`` listener receives.
public enum CommitSignal: Sendable, Hashable {
    /// A committed transaction sent this payload.
    case signal(String)
    /// Listening was interrupted and is back: signals sent meanwhile were not received.
    case reconnected
}
