import Foundation
import Stratus

/// An operation's `timeoutIntervalForRequest` on a remote database.
extension RemoteDatabaseService {
    /// The service for an operation whose `timeoutIntervalForRequest` is `seconds`: each request
    /// fails with `networkFailure` (and is retried as usual) when its answer takes longer, if
    /// that is shorter than the server's `requestTimeout`; this service otherwise.
    func boundingRequests(to seconds: TimeInterval) -> any DatabaseService {
        guard seconds.isFinite, seconds > 0 else { return self }
        let bounded = transport.bounded(by: .milliseconds(Int64((seconds * 1000).rounded(.up))))
        guard bounded !== transport else { return self }
        return RemoteDatabaseService(scope: scope, transport: bounded, userRecordName: userRecordName)
    }
}
