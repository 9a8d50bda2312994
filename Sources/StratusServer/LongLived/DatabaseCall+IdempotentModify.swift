import Crypto
import Foundation
import NIOCore
internal import Stratus

extension DatabaseCall {
    /// Applies `request` in this call's database — at most once per `X-Stratus-Operation-ID`
    /// when the request carries one (decision 0014.11): the outcome is journaled, unlisted, in
    /// the modify's transaction with the body's SHA-256, and a retry with the same ID and body
    /// gets the journaled outcome instead of applying again. Without the header it is Apple's plain modify.
    ///
    /// - Throws: 400 when the ID is malformed or was used for another request.
    func modify(_ request: ModifyRequest) async throws -> ModifyOutcome {
        guard let id = operationIDHeader else {
            return try await withDatabase { database in try database.modifyRecords(request) }
        }
        guard !id.isEmpty, id.utf8.count <= OperationSubmission.maximumIDBytes,
            !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ServerError.badRequest(
                "X-Stratus-Operation-ID must be 1 to \(OperationSubmission.maximumIDBytes) bytes without control characters"
            )
        }
        let body = self.body
        return try await withJournal { journal in
            // The body's SHA-256, not the body (up to 16 MiB) itself: what tells a retry from
            // another request under the same ID, journaled with the outcome.
            let fingerprint = Array(SHA256.hash(data: body.readableBytesView))
            do {
                return try journal.idempotentModify(
                    id, fingerprint: fingerprint, context: try database(), request: request)
            } catch let error as LongLivedSubmissionError {
                throw ServerError.badRequest(error.reason)
            }
        }
    }
}
