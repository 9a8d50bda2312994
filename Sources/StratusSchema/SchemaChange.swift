/// One difference between two schemas, and whether CloudKit's production environment
/// accepts it.
///
/// CloudKit refuses a schema that would lose data with respect to the production schema:
/// removing a record type or a field, or changing a field's type (Docs/SchemaLanguage.md,
/// "Changes in production"). Adding types, fields, indexes and roles, removing indexes and
/// changing grants lose no data and are accepted.
public struct SchemaChange: Hashable, Sendable, CustomStringConvertible {
    /// What changed.
    public enum Kind: String, Hashable, Sendable {
        /// A record type is added.
        case recordTypeAdded
        /// A record type is removed: refused in production.
        case recordTypeRemoved
        /// A field is added to a record type.
        case fieldAdded
        /// A field is removed from a record type: refused in production.
        case fieldRemoved
        /// A field's type changes: refused in production (giving a `NUMBER` field a
        /// `PREFERRED AS` type the first time is not a change of type).
        case fieldTypeChanged
        /// A `NUMBER` field gets its `PREFERRED AS` type for the first time: accepted (a later
        /// change of that type is a ``fieldTypeChanged``).
        case numberPreferred
        /// A field gains an index.
        case indexAdded
        /// A field loses an index: accepted, but queries that need it fail.
        case indexRemoved
        /// A role is created.
        case roleAdded
        /// A role is no longer created.
        case roleRemoved
        /// The permissions of a role on a record type change.
        case grantsChanged
    }

    /// What changed.
    public var kind: Kind
    /// The record type the change is in, if any.
    public var recordType: String?
    /// The field the change is to, if any.
    public var field: String?
    /// A sentence naming the record type and field, such as
    /// `field 'Note.title' changes type from STRING to INT64`.
    public var message: String

    /// A change of `kind` described by `message`.
    public init(kind: Kind, recordType: String? = nil, field: String? = nil, message: String) {
        self.kind = kind
        self.recordType = recordType
        self.field = field
        self.message = message
    }

    /// Whether CloudKit accepts the change against a production schema.
    public var isAllowedInProduction: Bool {
        switch kind {
        case .recordTypeRemoved, .fieldRemoved, .fieldTypeChanged: return false
        case .recordTypeAdded, .fieldAdded, .numberPreferred, .indexAdded, .indexRemoved, .roleAdded, .roleRemoved,
            .grantsChanged:
            return true
        }
    }

    /// ``message``.
    public var description: String { message }
}
