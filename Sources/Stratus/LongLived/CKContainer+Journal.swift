import Foundation
import StratusBackend

/// The container's side of the long-lived operation journal: listing and proxies.
extension CKContainer {
    /// The engine's view of the container, for its journal (every database of a container
    /// shares one journal).
    private func journalContext() throws -> DatabaseContext {
        try privateCloudDatabase.localContext(for: "long-lived operations")
    }

    /// The outstanding operations after purging expired ones, without those whose persisted
    /// block has not returned yet in this process.
    private func outstandingEntries() throws -> [(id: String, header: JournalHeader)] {
        let context = try journalContext()
        let state = context.engine.journalState
        let entries = try context.journal.outstanding(now: state.now, retention: state.retention)
        let announcing = state.announcing.withLock { $0 }
        return entries.filter { !announcing.contains($0.id) }
    }

    /// The server's journal, when the container's engine is a server's (decision 0016.6).
    private func remoteJournal() throws -> (any RemoteLongLivedJournal)? {
        guard databaseServiceFactory != nil else { return nil }
        return try privateCloudDatabase.service().remoteJournal
    }

    /// The IDs of the outstanding long-lived operations, oldest first.
    func outstandingLongLivedOperationIDs() throws -> [CKOperation.ID] {
        if let remote = try remoteJournal() { return try remote.outstandingIDs() }
        return try outstandingEntries().map(\.id)
    }

    /// The journal's status of the outstanding operation `id`.
    func outstandingLongLivedStatus(_ id: CKOperation.ID) throws -> LongLivedOperationStatus? {
        if let remote = try remoteJournal() {
            guard let entry = try remote.lookup(id) else { return nil }
            return LongLivedOperationStatus(
                operationID: id, operationType: entry.operationClass, databaseScope: entry.scope,
                state: entry.isRunning ? .running : .completed, persistedAt: entry.persistedAt,
                finishedAt: entry.finishedAt, journaledCallbacks: Int(entry.nextSequence))
        }
        guard let entry = try outstandingEntries().first(where: { $0.id == id }) else { return nil }
        let header = entry.header
        guard let scope = CKDatabase.Scope(rawValue: header.scope) else {
            throw CKError.make(
                .incompatibleVersion,
                "long-lived operation \(id) names database scope \(header.scope), which this version of Stratus does not know"
            )
        }
        return LongLivedOperationStatus(
            operationID: id, operationType: header.kind, databaseScope: scope,
            state: header.state == .running ? .running : .completed,
            persistedAt: Date(timeIntervalSince1970: header.createdAt),
            finishedAt: header.finishedAt.map { Date(timeIntervalSince1970: $0) },
            journaledCallbacks: Int(header.nextSequence))
    }

    /// A proxy of the outstanding operation `id`, configured from its journaled request.
    func longLivedProxy(_ id: CKOperation.ID) throws -> CKOperation? {
        if let remote = try remoteJournal() {
            guard let entry = try remote.lookup(id) else { return nil }
            return try proxy(id, kind: entry.operationClass, scope: entry.scope, request: entry.request)
        }
        guard let entry = try outstandingEntries().first(where: { $0.id == id }) else { return nil }
        let context = try journalContext()
        guard let operation = LongLivedOperationKinds.make(entry.header.kind),
            let scope = CKDatabase.Scope(rawValue: entry.header.scope)
        else {
            logger.warning(
                "long-lived journal entry of an unknown kind or scope; it cannot be resumed",
                metadata: [
                    LogKey.operationID: "\(id)", LogKey.operationKind: "\(entry.header.kind)",
                ])
            throw CKError.make(
                .incompatibleVersion,
                "long-lived operation \(id) is a \(entry.header.kind), which this version of Stratus cannot resume")
        }
        guard let request = try context.journal.request(id) else { return nil }
        return try configure(operation, id, kind: entry.header.kind, scope: scope, request: request)
    }

    /// A proxy of a server's operation `id` of class `kind` (decision 0016.6).
    private func proxy(_ id: CKOperation.ID, kind: String, scope: CKDatabase.Scope, request: [UInt8]) throws
        -> CKOperation
    {
        guard let operation = LongLivedOperationKinds.make(kind) else {
            throw CKError.make(
                .incompatibleVersion,
                "long-lived operation \(id) is a \(kind), which this version of Stratus cannot resume")
        }
        return try configure(operation, id, kind: kind, scope: scope, request: request)
    }

    /// `operation` configured from its journaled `request` as the proxy of `id`.
    private func configure(
        _ operation: any LongLivedOperation, _ id: CKOperation.ID, kind: String, scope: CKDatabase.Scope,
        request: [UInt8]
    ) throws -> CKOperation {
        var reader = ByteReader(request)
        do {
            try operation.decodeRequest(from: &reader)
        } catch {
            logger.error(
                "long-lived journal entry's request is damaged; the operation cannot be resumed",
                metadata: [LogKey.operationID: "\(id)", LogKey.operationKind: "\(kind)"])
            throw CKError.make(.internalError, "the journaled request of long-lived operation \(id) is damaged")
        }
        operation.operationID = id
        operation.configuration.isLongLived = true
        operation.longLived.origin = LongLivedOrigin(container: self, scope: scope)
        return operation
    }
}
