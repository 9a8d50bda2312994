import Foundation
import Stratus

/// Prints every callback of one long-lived operation for `remote-long-lived` (one line each,
/// prefixed with the operation's tag), and stops the operation's callbacks after a number of
/// them so that a test can kill the process there.
final class RemoteCallbackPrinter: @unchecked Sendable {
    private let tag: String
    private let freeze: Int32?
    private let lock = NSLock()
    private var remaining: Int?

    /// A printer for the operation tagged `tag` that holds after `holdAfter` callbacks (0:
    /// never), sending SIGSTOP to `freeze` first when given.
    init(tag: String, holdAfter: Int = 0, freeze: Int32? = nil) {
        self.tag = tag
        self.freeze = freeze
        remaining = holdAfter > 0 ? holdAfter : nil
    }

    func attach(to operation: CKModifyRecordsOperation) {
        operation.perRecordSaveBlock = { [self] id, result in
            emit("SAVE \(id.recordName) \(describe(result.map { $0.recordChangeTag ?? "" }))")
        }
        operation.perRecordDeleteBlock = { [self] id, _ in emit("DELETED \(id.recordName)") }
        operation.modifyRecordsResultBlock = { [self] result in emit("FINAL \(describe(result.map { "ok" }))") }
    }

    func attach(to operation: CKFetchRecordZoneChangesOperation) {
        operation.recordWasChangedBlock = { [self] id, result in
            emit("CHANGED \(id.recordName) \(describe(result.map { $0.recordChangeTag ?? "" }))")
        }
        operation.recordWithIDWasDeletedBlock = { [self] id, _ in emit("DELETED \(id.recordName)") }
        operation.recordZoneChangeTokensUpdatedBlock = { [self] _, token, _ in
            emit("TOKENS \(token?.data.base64EncodedString() ?? "nil")")
        }
        operation.recordZoneFetchResultBlock = { [self] _, result in
            emit("ZONE \(describe(result.map { "ok \($0.moreComing)" }))")
        }
        operation.fetchRecordZoneChangesResultBlock = { [self] result in emit("FINAL \(describe(result.map { "ok" }))")
        }
    }

    /// Prints `line` with the tag; at the hold point, stops here until killed.
    private func emit(_ line: String) {
        RemoteLongLivedCommand.emit("\(tag) \(line)")
        let stop: Bool = lock.withLock {
            guard let left = remaining else { return false }
            remaining = left - 1
            return left == 1
        }
        guard stop else { return }
        if let freeze { _ = kill(freeze, SIGSTOP) }
        RemoteLongLivedCommand.emit("HOLD \(tag)")
        // Killed long before: the test died, so leave.
        Thread.sleep(forTimeInterval: 120)
        exit(3)
    }

    private func describe(_ result: Result<String, any Error>) -> String {
        switch result {
        case .success(let text): return text
        case .failure(let error): return "error \(error)".replacingOccurrences(of: "\n", with: " ")
        }
    }
}
