/// The CloudKit environment of the default containers over a backend (the `environment`
/// setting, decision 0020): each environment has its own data and schema.
public enum ContainerEnvironment: String, Sendable, Hashable, CaseIterable {
    /// Record types and fields are added as records are saved (the just-in-time schema).
    case development
    /// The schema is fixed: saves and queries keep to the schema imported for it.
    case production
}
