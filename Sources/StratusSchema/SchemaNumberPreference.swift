/// The type a `NUMBER` field is treated as (`PREFERRED AS`).
public enum SchemaNumberPreference: String, CaseIterable, Hashable, Sendable {
    /// `PREFERRED AS INT64`.
    case int64 = "INT64"
    /// `PREFERRED AS DOUBLE`.
    case double = "DOUBLE"
}
