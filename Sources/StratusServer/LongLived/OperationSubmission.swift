import Foundation
internal import Stratus

/// The body of `stratus/operations/submit` (decision 0014.8): `request` is the journal's own
/// encoding of the operation's request, base64.
struct OperationSubmission: Decodable, Sendable {
    var operationID: String
    var operationClass: String
    var isLongLived: Bool
    var request: String

    /// The longest operation ID accepted, in UTF-8 bytes.
    static let maximumIDBytes = 256

    /// The checked submission: an ID of 1 to 256 bytes without control characters, and the
    /// request's bytes.
    ///
    /// - Throws: 400 `BAD_REQUEST` naming the field.
    func checked() throws(ServerError) -> LongLivedSubmission {
        guard !operationID.isEmpty, operationID.utf8.count <= Self.maximumIDBytes,
            !operationID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .badRequest(
                "operationID must be 1 to \(Self.maximumIDBytes) bytes of UTF-8 without control characters")
        }
        guard request.utf8.count <= LongLivedSubmission.maximumRequestBytes / 3 * 4 + 4,
            let bytes = Data(base64Encoded: request)
        else {
            throw .badRequest("request must be the operation's encoded request in base64, at most 16 MiB")
        }
        return LongLivedSubmission(operationClass: operationClass, request: Array(bytes))
    }
}
