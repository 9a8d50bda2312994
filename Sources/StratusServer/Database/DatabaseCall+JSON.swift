import Foundation
import Hummingbird
import NIOCore
internal import StratusWebServices

extension DatabaseCall {
    /// The body decoded as `T`, or 400 `BAD_REQUEST` naming where it is malformed.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONBody.decode(type, from: body)
    }

    /// A 200 response whose body is `value`.
    func respond(_ value: JSONValue) -> Response {
        JSONBody.response(value)
    }

    /// The translator for this caller (zone owners written as the caller's record name), with
    /// this database's asset receipts and download URLs (decision 0012.8).
    var translator: WSRecordTranslator {
        WSRecordTranslator(
            callerRecordName: path.scope == .public ? nil : caller.userRecordName,
            assets: server.assetKeys.current.map {
                AssetFieldCoder(key: $0, database: AssetDatabase(self), origin: origin)
            })
    }
}
