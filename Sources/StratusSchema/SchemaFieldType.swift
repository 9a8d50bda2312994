/// The type of a field: a primitive type or a list of one (`LIST<…>`).
public enum SchemaFieldType: Hashable, Sendable {
    /// `ASSET`: a file stored apart from the record.
    case asset
    /// `BYTES`: bytes stored with the record.
    case bytes
    /// `DOUBLE`: a 64-bit floating-point number.
    case double
    /// `INT64`: a 64-bit integer.
    case int64
    /// `LOCATION`: a geographic location.
    case location
    /// `REFERENCE`: a reference to another record.
    case reference
    /// `STRING`: text.
    case string
    /// `TIMESTAMP`: a date and time.
    case timestamp
    /// `NUMBER [PREFERRED AS INT64|DOUBLE]`: a number field a record modification added
    /// implicitly in development; `preferredAs` is the type the schema says to treat it as.
    case number(preferredAs: SchemaNumberPreference?)
    /// `ENCRYPTED …`: a field whose values are encrypted with keys the server does not have.
    case encrypted(SchemaEncryptedType)
    /// `LIST<…>`: a list of values of one primitive type (never a list of lists).
    indirect case list(SchemaFieldType)

    /// Whether the type is a list.
    public var isList: Bool {
        if case .list = self { return true }
        return false
    }

    /// The schema language's spelling, such as `LIST<ENCRYPTED STRING>` or
    /// `NUMBER PREFERRED AS INT64`.
    public var text: String {
        switch self {
        case .asset: return "ASSET"
        case .bytes: return "BYTES"
        case .double: return "DOUBLE"
        case .int64: return "INT64"
        case .location: return "LOCATION"
        case .reference: return "REFERENCE"
        case .string: return "STRING"
        case .timestamp: return "TIMESTAMP"
        case .number(nil): return "NUMBER"
        case .number(let preferred?): return "NUMBER PREFERRED AS \(preferred.rawValue)"
        case .encrypted(let base): return "ENCRYPTED \(base.rawValue)"
        case .list(let element): return "LIST<\(element.text)>"
        }
    }
}
