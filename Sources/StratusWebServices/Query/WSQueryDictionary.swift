/// A query dictionary `{recordType, filterBy?, sortBy?}` (Apple's *Query Dictionary*), as
/// `records/query` and query subscriptions send it.
package struct WSQueryDictionary: Decodable, Sendable {
    /// One filter: `{comparator, fieldName | systemFieldName, fieldValue, distance?}`.
    package struct Filter: Decodable, Sendable {
        /// A ``WSComparator`` name, such as `EQUALS`.
        package var comparator: String
        /// The record field compared (or ``systemFieldName``).
        package var fieldName: String?
        /// A ``WSSystemField`` name, such as `createdTimestamp` (or ``fieldName``).
        package var systemFieldName: String?
        /// `{value, type?}`; `value` is a list for `IN`, `NOT_IN` and the `LIST_…_ANY/ALL` forms.
        package var fieldValue: WSFieldDictionary
        /// The radius of `NEAR`, in metres.
        package var distance: Double?
    }

    /// One sort: `{fieldName | systemFieldName, ascending?, relativeLocation?}`.
    package struct Sort: Decodable, Sendable {
        /// The record field sorted by (or ``systemFieldName``).
        package var fieldName: String?
        /// A ``WSSystemField`` name (or ``fieldName``).
        package var systemFieldName: String?
        /// Smaller values first; `true` when absent.
        package var ascending: Bool?
        /// A location dictionary: sort by distance from it (nearest first).
        package var relativeLocation: JSONValue?
    }

    /// The type of the records searched.
    package var recordType: String
    /// The filters, ANDed; every record of the type when absent.
    package var filterBy: [Filter]?
    /// The sorts, most significant first; the engine's order when absent.
    package var sortBy: [Sort]?
}
