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
        var header = JournalHeader(kind: Self.webServicesModifyKind, scope: scope.rawValue, createdAt: now)
        header.isListed = false
        header.state = .completed
        header.finishedAt = now
        header.nextSequence = Int64(outcome.saveResults.count + outcome.deleteResults.count + 1)
        try txn.set(journal.keys.header(id), header.encoded())
        try JournalExpiryIndex.index(
            header, id: id, keys: journal.keys, retention: engine.journalState.retention, txn)
        for (index, part) in OperationJournal.parts(of: fingerprint).enumerated() {
            try txn.set(journal.keys.request(id, part: Int64(index)), part)
        }
        try journalEvents(of: outcome, id: id, txn)
    }

    /// Journals the outcome's callbacks in order: saves, deletions, the end. A saved record
    /// whose change-log entry the modify kept is journaled as those bytes
    /// (``storedSaveEvent(_:entry:)``), not encoded a second time; every other callback as
    /// `CKModifyRecordsOperation.Event` encodes it.
    private func journalEvents(of outcome: ModifyOutcome, id: String, _ txn: any BackendWriteTransaction) throws {
        typealias Event = CKModifyRecordsOperation.Event
        var sequence: Int64 = 0
        func append(_ bytes: [UInt8]) throws {
            for (index, part) in OperationJournal.parts(of: bytes).enumerated() {
                try txn.set(journal.keys.event(id, sequence, part: Int64(index)), part)
            }
            sequence += 1
        }
        for (index, (recordID, result)) in outcome.saveResults.enumerated() {
            if case .success = result, let entry = outcome.storedEntry(index) {
                try append(Self.storedSaveEvent(recordID, entry: entry))
            } else {
                try append(Event.saved(recordID, result).encoded)
            }
        }
        for (recordID, result) in outcome.deleteResults { try append(Event.deleted(recordID, result).encoded) }
        try append(Event.finished(nil).encoded)
    }

    /// The tag of a saved record journaled as its change-log entry; after
    /// `ItemModifyEvent`'s tags 1–5, which this journal also holds.
    private static let storedSaveTag: UInt8 = 6

    /// A saved record's callback as the journal keeps it: the tag, the record's ID, and the
    /// change-log entry the engine stored for it (the record is made from it again on replay).
    private static func storedSaveEvent(_ recordID: CKRecord.ID, entry: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: entry.count + 64)
        writer.write(storedSaveTag)
        writer.write(recordID: recordID)
        writer.write(bytes: entry)
        return writer.bytes
    }

    /// Reads one journaled callback of a modify's outcome into `outcome`.
    private func readEvent(
        _ bytes: [UInt8], into outcome: inout ModifyOutcome, context: DatabaseContext, _ txn: any BackendReadTransaction
    ) throws {
        var reader = ByteReader(bytes)
        if bytes.first == Self.storedSaveTag {
            _ = try reader.readByte()
            let recordID = try reader.readRecordID()
            let stored = try ChangeEntry.liveRecord(try reader.readBytes())
            let record = context.makeRecord(stored, id: recordID, desiredKeys: nil, txn)
            outcome.saveResults.append((recordID, .success(record)))
            return
        }
        switch try CKModifyRecordsOperation.Event.decode(from: &reader, context: context) {
        case .saved(let recordID, let result): outcome.saveResults.append((recordID, result))
        case .deleted(let recordID, let result): outcome.deleteResults.append((recordID, result))
        case .finished: break
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
            try engine.read { txn in
                for (_, bytes) in page { try readEvent(bytes, into: &outcome, context: context, txn) }
            }
            next += Int64(page.count)
        }
        return outcome
    }
}
