import Foundation
import Hummingbird
import NIOCore

/// A CloudKit Web Services error dictionary (`serverErrorCode`, `reason`, `uuid`), as Apple's
/// service answers a refused request.
struct CloudKitErrorBody: Encodable, Sendable {
    /// The request's ID, also in the server's log line.
    var uuid: String
    /// One of Apple's codes, such as `AUTHENTICATION_FAILED`.
    var serverErrorCode: String
    /// What was wrong, for a person.
    var reason: String
    /// Seconds to wait before retrying, when retrying helps.
    var retryAfter: Int? = nil
    /// Stratus's addition: the `CKError.Code` name.
    var stratusErrorCode: String? = nil
    /// Apple's sign-in page for a 421 `AUTHENTICATION_REQUIRED`, when one is configured.
    var redirectURL: String? = nil

    /// The HTTP response carrying this dictionary with `status`.
    func response(status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(self))))
    }
}
