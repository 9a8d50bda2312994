/// Something a predicate can be evaluated against: a record, seen as named field values.
///
/// The Stratus engine conforms its record snapshots; tests conform dictionaries.
public protocol PredicateSubject {
    /// The value of the field `key`, or `nil` when the record has no such field. System
    /// fields (`recordID`, `creationDate`, `modificationDate`, …) are looked up by the same
    /// names a format string uses. A ``PredicateValue/null`` is treated like an absent field.
    func predicateValue(forKey key: String) -> PredicateValue?

    /// The string values a full-text search (`self CONTAINS 'words'`) looks in: every
    /// searchable string field, and the string elements of searchable string lists.
    var searchableText: [String] { get }
}
