import Foundation

/// Why a submitted long-lived operation was refused before anything was written: the reason
/// names the problem (stratusd answers 400 with it).
package struct LongLivedSubmissionError: Error, Sendable {
    package var reason: String
}

/// A long-lived operation as a client submits it to stratusd (decision 0014.8): the operation's
/// class, as the journal names it, and its request in the journal's own encoding (0006.9).
package struct LongLivedSubmission: Sendable {
    /// The largest request accepted, in bytes (a modify of 400 records of 1 MB is not one
    /// submission; the body limit applies first anyway).
    package static let maximumRequestBytes = 16 << 20

    package var operationClass: String
    package var request: [UInt8]

    package init(operationClass: String, request: [UInt8]) {
        self.operationClass = operationClass
        self.request = request
    }

    /// The submission of a configured `operation`: what a remote client sends.
    package init(encoding operation: CKDatabaseOperation) throws {
        guard let coding = operation as? any LongLivedOperation else {
            throw LongLivedSubmissionError(reason: "\(type(of: operation)) cannot be long-lived")
        }
        var writer = ByteWriter()
        try coding.encodeRequest(to: &writer)
        self.init(operationClass: type(of: coding).longLivedKind, request: writer.bytes)
    }

    /// The operation the submission describes, decoded as untrusted input: a known class, a
    /// request that decodes completely with nothing left over, and nothing that would make the
    /// server read its own files (asset fields name local files in the journal's encoding).
    ///
    /// - Throws: ``LongLivedSubmissionError`` naming the problem.
    func decoded() throws(LongLivedSubmissionError) -> any LongLivedOperation {
        guard request.count <= Self.maximumRequestBytes else {
            throw LongLivedSubmissionError(
                reason: "the request has \(request.count) bytes; at most \(Self.maximumRequestBytes) are accepted")
        }
        guard let operation = LongLivedOperationKinds.make(operationClass) else {
            throw LongLivedSubmissionError(
                reason: "'\(operationClass.prefix(100))' is not an operation class this server runs long-lived")
        }
        var reader = ByteReader(request)
        do {
            try operation.decodeRequest(from: &reader)
        } catch {
            throw LongLivedSubmissionError(
                reason: "the request is not a valid encoded \(operationClass) request (it ends early or holds an "
                    + "invalid value near byte \(reader.offset))")
        }
        guard reader.remaining == 0 else {
            throw LongLivedSubmissionError(
                reason: "the request has \(reader.remaining) bytes after the encoded \(operationClass) request")
        }
        if let modify = operation as? CKModifyRecordsOperation,
            let record = (modify.recordsToSave ?? []).first(where: \.holdsAsset)
        {
            throw LongLivedSubmissionError(
                reason: "record '\(record.recordID.recordName.prefix(255))' has an asset field: submitted operations "
                    + "cannot carry assets yet (save it with records/modify and an asset receipt)")
        }
        if let query = operation as? CKQueryOperation,
            let error = (query.query ?? query.cursor?.query)?.predicate.stratusParseError
        {
            throw LongLivedSubmissionError(reason: "the query's predicate cannot be read: \(error)")
        }
        return operation
    }
}

extension CKRecord {
    /// Whether a field of the record is an asset or a list of assets.
    var holdsAsset: Bool {
        state.withLock { $0.values.values }.contains { $0.holdsAsset }
    }
}

extension FieldValue {
    fileprivate var holdsAsset: Bool {
        switch self {
        case .asset: return true
        case .list(let items): return items.contains { $0.holdsAsset }
        default: return false
        }
    }
}
