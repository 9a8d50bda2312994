import Foundation

extension CKDatabaseOperation {
    /// Marks this proxy's journaled operation cancelled, so it is no longer listed or fetchable.
    func cancelJournaledOperation() {
        if let origin = longLived.origin,
            let remote = try? origin.container.database(with: origin.scope).service().remoteJournal
        {
            try? remote.cancel(operationID)
            return
        }
        guard let origin = longLived.origin,
            let context = try? origin.container.database(with: origin.scope).localContext(for: "long-lived operations")
        else { return }
        _ = try? context.journal.finish(operationID, as: .cancelled, now: context.engine.journalState.now)
    }
}
