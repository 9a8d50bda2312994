import Foundation
import StratusBackend

extension HostedJournal {
    /// The journal's name for an Apple-shaped `records/modify` made idempotent by an operation
    /// ID (decision 0014.11).
    static let webServicesModifyKind = "records/modify"

    /// Applies `request` in `context` at most once for operation ID `id`: the first call
    /// modifies and journals the outcome, unlisted, in the modify's own transaction (every
    /// callback in one journal event); a later
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
        header.nextSequence = 1
        try txn.set(journal.keys.header(id), header.encoded())
        try JournalExpiryIndex.index(
            header, id: id, keys: journal.keys, retention: engine.journalState.retention, txn)
        for (index, part) in OperationJournal.parts(of: fingerprint).enumerated() {
            try txn.set(journal.keys.request(id, part: Int64(index)), part)
        }
        // Every callback in one journal event: one write per 256 KiB instead of one per item,
        // which cost a remote save a third more rows than the records themselves.
        var batch = ByteWriter()
        batch.write(Self.eventBatchTag)
        batch.writeVarint(events.count)
        for event in events { event.encode(to: &batch) }
        for (index, part) in OperationJournal.parts(of: batch.bytes).enumerated() {
            try txn.set(journal.keys.event(id, 0, part: Int64(index)), part)
        }
    }

    /// The first byte of a journal event holding a whole outcome's callbacks (a count, then
    /// each callback), as ``journalOutcome(_:fingerprint:scope:_:_:)`` writes it. Entries
    /// journaled before it hold one callback per event (whose first byte is 1 to 5).
    private static let eventBatchTag: UInt8 = 0xB0

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
                var count = 1
                if bytes.first == Self.eventBatchTag {
                    _ = try reader.readByte()
                    count = try reader.readVarint()
                    guard count <= reader.remaining else { throw EngineError.corruptValue }
                }
                for _ in 0..<count { Self.add(try .decode(from: &reader, context: context), to: &outcome) }
            }
            next += Int64(page.count)
        }
        return outcome
    }

    /// Adds a journaled callback's result to `outcome`.
    private static func add(_ event: CKModifyRecordsOperation.Event, to outcome: inout ModifyOutcome) {
        switch event {
        case .saved(let recordID, let result): outcome.saveResults.append((recordID, result))
        case .deleted(let recordID, let result): outcome.deleteResults.append((recordID, result))
        case .finished: break
        }
    }
}
