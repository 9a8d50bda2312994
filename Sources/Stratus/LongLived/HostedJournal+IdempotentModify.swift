import Foundation
import StratusBackend

extension HostedJournal {
    /// The journal's name for an Apple-shaped `records/modify` made idempotent by an operation
    /// ID (decision 0014.11).
    static let webServicesModifyKind = "records/modify"

    /// Applies `request` in `context` at most once for operation ID `id`: the first call
    /// modifies and journals the outcome, unlisted, in the modify's own transaction; a later
    /// call with the same `fingerprint` (the request as the client sent it) returns the
    /// journaled outcome without applying anything.
    ///
    /// - Throws: ``LongLivedSubmissionError`` when `id` was used for another request; the
    ///   modify's own errors otherwise.
    package func idempotentModify(
        _ id: String, fingerprint: [UInt8], context: DatabaseContext, request: ModifyRequest
    ) throws -> ModifyOutcome {
        if let outcome = try journaledOutcome(id, fingerprint: fingerprint, context: context) { return outcome }
        do {
            return try context.modifyRecords(
                request,
                journal: { outcome, txn in
                    try journalOutcome(id, fingerprint: fingerprint, scope: context.scope, outcome, txn)
                })
        } catch is JournalConflict {
            // A concurrent retry journaled first: its outcome is this request's.
            guard let outcome = try journaledOutcome(id, fingerprint: fingerprint, context: context) else {
                throw CKError.make(.serviceUnavailable, "the modify's outcome is not readable yet; retry")
            }
            return outcome
        }
    }

    private func journalOutcome(
        _ id: String, fingerprint: [UInt8], scope: CKDatabase.Scope, _ outcome: ModifyOutcome,
        _ txn: any BackendWriteTransaction
    ) throws {
        guard try txn.get(journal.keys.header(id)) == nil else { throw JournalConflict(reason: .advanced) }
        let events = CKModifyRecordsOperation.Event.events(saved: outcome.saveResults, deleted: outcome.deleteResults)
        var header = JournalHeader(kind: Self.webServicesModifyKind, scope: scope.rawValue, createdAt: now)
        header.isListed = false
        header.state = .completed
        header.finishedAt = now
        header.nextSequence = Int64(events.count)
        try txn.set(journal.keys.header(id), header.encoded())
        try JournalExpiryIndex.index(
            header, id: id, keys: journal.keys, retention: engine.journalState.retention, txn)
        for (index, part) in OperationJournal.parts(of: fingerprint).enumerated() {
            try txn.set(journal.keys.request(id, part: Int64(index)), part)
        }
        for (sequence, event) in events.enumerated() {
            for (index, part) in OperationJournal.parts(of: event.encoded).enumerated() {
                try txn.set(journal.keys.event(id, Int64(sequence), part: Int64(index)), part)
            }
        }
    }

    /// The journaled outcome of `id`, or `nil` when there is none.
    private func journaledOutcome(_ id: String, fingerprint: [UInt8], context: DatabaseContext) throws
        -> ModifyOutcome?
    {
        guard let header = try journal.header(id) else { return nil }
        guard header.kind == Self.webServicesModifyKind, header.scope == context.scope.rawValue,
            try journal.request(id) == fingerprint
        else {
            throw LongLivedSubmissionError(
                reason: "operation ID '\(id.prefix(256))' was already used for another request")
        }
        var outcome = ModifyOutcome(saveResults: [], deleteResults: [])
        var next: Int64 = 0
        while next < header.nextSequence {
            let page = try journal.events(id, from: next, limit: 128)
            guard !page.isEmpty else { throw EngineError.corruptValue }
            for (_, bytes) in page {
                var reader = ByteReader(bytes)
                switch try CKModifyRecordsOperation.Event.decode(from: &reader, context: context) {
                case .saved(let recordID, let result): outcome.saveResults.append((recordID, result))
                case .deleted(let recordID, let result): outcome.deleteResults.append((recordID, result))
                case .finished: break
                }
            }
            next += Int64(page.count)
        }
        return outcome
    }
}
