import Foundation
import Hummingbird
import NIOCore
internal import StratusWebServices

/// Request bodies in, response bodies out, through our own JSON (``JSONValue``): one place for
/// the refusals a malformed body gets and the headers an answer carries.
enum JSONBody {
    /// `body` decoded as `T`, or 400 `BAD_REQUEST` naming where it is malformed (the JSON path,
    /// or the byte offset of a syntax error).
    static func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws -> T {
        let bytes = Array(body.readableBytesView)
        guard !bytes.isEmpty else { throw ServerError.badRequest("the request needs a JSON body") }
        do {
            return try JSONValueDecoder().decode(type, from: bytes)
        } catch let error as JSONParseError {
            throw ServerError.badRequest("the body is not valid JSON: \(error)")
        } catch let error as JSONDecodeError {
            throw ServerError.badRequest("the body is not a valid request: \(error)")
        }
    }

    /// A 200 response whose body is `value`.
    static func response(_ value: JSONValue) -> Response {
        response(value.serialized())
    }

    /// A 200 response whose body is `json`, JSON already written (``JSONWriter``).
    static func response(_ json: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
}
