import Foundation

/// Where a proxy's journaled operation lives: the container that fetched it, and the scope of
/// the database the original operation ran against.
struct LongLivedOrigin: Sendable {
    let container: CKContainer
    let scope: CKDatabase.Scope
}

/// A database operation's long-lived bookkeeping (decision 0006): the `isLongLived` flag as it
/// was when the operation started, and, for a proxy, where its journal entry lives.
final class LongLivedState: @unchecked Sendable {
    private let lock = NSLock()
    private var flag: Bool?
    private var proxyOrigin: LongLivedOrigin?
    private var runHost: LongLivedHost?

    /// Remembers `isLongLived` the first time the operation starts; later changes do nothing.
    func captureFlag(_ value: Bool) {
        lock.withLock { if flag == nil { flag = value } }
    }

    /// `isLongLived` as read at start (`false` before start).
    var isLongLivedAtStart: Bool { lock.withLock { flag ?? false } }

    /// The origin of a proxy returned by `fetchLongLivedOperation(withID:)`; `nil` for an
    /// operation the app made.
    var origin: LongLivedOrigin? {
        get { lock.withLock { proxyOrigin } }
        set { lock.withLock { proxyOrigin = newValue } }
    }

    /// The host of an operation stratusd runs from its journal (decision 0014.9); `nil`
    /// otherwise.
    var host: LongLivedHost? {
        get { lock.withLock { runHost } }
        set { lock.withLock { runHost = newValue } }
    }
}
