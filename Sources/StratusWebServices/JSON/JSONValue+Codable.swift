extension JSONValue: Codable {
    /// Decodes any JSON value. Under ``JSONValueDecoder`` the value is taken as parsed, so
    /// integers stay exact and `1` stays distinct from `1.0`; under another decoder (Foundation's
    /// `JSONDecoder`) a number is an integer whenever it decodes as `Int64`, which cannot tell
    /// `1.0` from `1` — the server decodes request bodies with ``JSONValueDecoder`` only.
    package init(from decoder: any Decoder) throws {
        if let own = decoder as? JSONValueDecoding {
            self = own.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the matching JSON value.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .integer(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}
