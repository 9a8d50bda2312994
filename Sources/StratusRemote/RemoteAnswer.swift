import Stratus
import StratusWebServices

/// A 200 answer of the server: JSON, or bytes in the binary record encoding (decision 0018).
enum RemoteAnswer {
    case json(JSONValue)
    case binary([UInt8])

    /// The JSON of an answer to a request that asked for nothing else.
    func json(_ path: String) throws(CKError) -> JSONValue {
        switch self {
        case .json(let value): return value
        case .binary:
            throw RemoteFailure.error(
                .serverResponseLost, "the server answered \(path) in a binary encoding it was not asked for")
        }
    }
}
