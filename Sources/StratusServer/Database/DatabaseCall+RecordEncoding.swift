import Foundation
import Hummingbird
import NIOCore
internal import StratusWebServices

/// The binary record encoding (decision 0018) of a call: whether its body is in it, whether
/// its answer may be, and the answer's response.
extension DatabaseCall {
    /// Whether the body is in the binary record encoding (its `Content-Type` says so).
    var sentRecordEncoding: Bool {
        server.recordEncoding && StratusRecordEncoding.isNamed(in: contentType)
    }

    /// Whether the answer may be in the binary record encoding (its `Accept` names it).
    var acceptsRecordEncoding: Bool {
        server.recordEncoding && StratusRecordEncoding.isNamed(in: accept)
    }

    /// The body's bytes.
    var bodyBytes: [UInt8] { Array(body.readableBytesView) }

    /// A 200 response whose body is in the binary record encoding.
    static func recordEncodingResponse(_ bytes: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = StratusRecordEncoding.mediaType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
