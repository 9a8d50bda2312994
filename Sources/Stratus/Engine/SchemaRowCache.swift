import StratusSchema
import Synchronization

/// The schemas of the environments as last parsed, by row key (decision 0020.1): a schema row
/// is its canonical text, read in every transaction that needs it and parsed again only when
/// its bytes differ from the last ones parsed.
final class SchemaRowCache: Sendable {
    private let parsed = Mutex<[[UInt8]: (bytes: [UInt8], schema: CloudKitSchema)]>([:])

    /// The format byte that starts a schema row.
    static let format: UInt8 = 1

    /// A schema row: the format byte, then the canonical text in UTF-8.
    static func encode(_ schema: CloudKitSchema) -> [UInt8] {
        [format] + Array(schema.text.utf8)
    }

    /// The schema a row at `key` holds (`nil`: no row, the empty schema).
    func schema(at key: [UInt8], bytes: [UInt8]?) throws -> CloudKitSchema {
        guard let bytes else { return CloudKitSchema() }
        if let cached = parsed.withLock({ $0[key] }), cached.bytes == bytes { return cached.schema }
        guard bytes.first == Self.format, let text = String(validating: bytes.dropFirst(), as: UTF8.self) else {
            throw EngineError.corruptValue
        }
        let schema: CloudKitSchema
        switch Result(catching: { () throws(SchemaErrors) in try CloudKitSchema.parse(text) }) {
        case .success(let value): schema = value
        case .failure: throw EngineError.corruptValue
        }
        parsed.withLock { $0[key] = (bytes, schema) }
        return schema
    }
}
