import StratusSchema

/// The errors of the environment's schema (decision 0020.6), in CloudKit's words: all
/// `invalidArguments` (Web Services `BAD_REQUEST`), naming the record type and field.
enum SchemaViolation {
    /// A save of a record type the production schema does not have.
    static func newType(_ recordType: String) -> CKError {
        CKError.make(.invalidArguments, "Cannot create new type \(recordType) in production schema")
    }

    /// A save of a field the production schema's record type does not have.
    static func newField(_ field: String, of recordType: String) -> CKError {
        CKError.make(
            .invalidArguments, "Cannot create or modify field '\(field)' in record '\(recordType)' in production schema"
        )
    }

    /// A value of a type the field does not take.
    static func wrongType(_ value: SchemaType, field: String, of recordType: String, defined: String) -> CKError {
        CKError.make(
            .invalidArguments,
            "invalid attempt to set value type \(value.name) for field '\(field)' for type '\(recordType)', defined to be: \(defined)"
        )
    }

    /// A filter on a field that is not `QUERYABLE`.
    static func notQueryable(_ field: String) -> CKError {
        CKError.make(.invalidArguments, "Field '\(field)' is not marked queryable")
    }

    /// A sort on a field that is not `SORTABLE`.
    static func notSortable(_ field: String) -> CKError {
        CKError.make(.invalidArguments, "Field '\(field)' is not marked sortable")
    }
}
