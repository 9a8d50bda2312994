import StratusSchema

extension SchemaType {
    /// The schema language's type a development save gives a new field of this type (decision
    /// 0020.5): numbers are `NUMBER`; `nil` for a list that has only held empty lists, whose
    /// element type is not known yet.
    var schemaFieldType: SchemaFieldType? {
        switch self {
        case .string: return .string
        case .number: return .number(preferredAs: nil)
        case .timestamp: return .timestamp
        case .bytes: return .bytes
        case .reference: return .reference
        case .location: return .location
        case .asset: return .asset
        case .emptyList, .invalid: return nil
        default:
            guard let element = SchemaType(rawValue: rawValue & 0x0F) else { return nil }
            return element.schemaFieldType.map { .list($0) }
        }
    }
}

extension SchemaFieldType {
    /// Whether a field of this schema type takes a value of the engine's `type`: any number
    /// in `NUMBER`, `INT64` or `DOUBLE` (numbers bridge freely in Apple's languages), an
    /// encrypted type's values as its base type's, a list's elements as its element type, an
    /// empty list in any list.
    func accepts(_ type: SchemaType) -> Bool {
        switch self {
        case .list(let element):
            if type == .emptyList { return true }
            guard type.isList, let valueElement = SchemaType(rawValue: type.rawValue & 0x0F) else { return false }
            return element.accepts(valueElement)
        case .int64, .double, .number: return type == .number
        case .encrypted(let base): return Self.base(base).accepts(type)
        default: return type.schemaFieldType == self
        }
    }

    /// The plain type an encrypted type holds.
    private static func base(_ encrypted: SchemaEncryptedType) -> SchemaFieldType {
        switch encrypted {
        case .bytes: return .bytes
        case .string: return .string
        case .double: return .double
        case .int64: return .int64
        case .location: return .location
        case .timestamp: return .timestamp
        }
    }
}
