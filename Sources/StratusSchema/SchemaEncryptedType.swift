/// The types the schema language can encrypt (`ENCRYPTED …`): not `ASSET` (always
/// encrypted), `REFERENCE` (the server needs it) or `NUMBER`.
public enum SchemaEncryptedType: String, CaseIterable, Hashable, Sendable {
    /// `ENCRYPTED BYTES`.
    case bytes = "BYTES"
    /// `ENCRYPTED STRING`.
    case string = "STRING"
    /// `ENCRYPTED DOUBLE`.
    case double = "DOUBLE"
    /// `ENCRYPTED INT64`.
    case int64 = "INT64"
    /// `ENCRYPTED LOCATION`.
    case location = "LOCATION"
    /// `ENCRYPTED TIMESTAMP`.
    case timestamp = "TIMESTAMP"
}
