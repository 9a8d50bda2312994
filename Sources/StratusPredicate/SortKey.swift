import Foundation

/// One sort criterion of a query: a field and a direction, optionally the distance from a
/// location (`CKLocationSortDescriptor`).
///
/// Read it from an `NSSortDescriptor` with `stratusSortKey`.
public struct SortKey: Sendable, Hashable {
    /// The field to sort by.
    public var key: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// When set, records sort by the distance of the field's location from this point;
    /// records whose field is absent or not a location sort as absent.
    public var relativeLocation: PredicateLocation?

    /// A sort by `key`.
    public init(key: String, ascending: Bool, relativeLocation: PredicateLocation? = nil) {
        self.key = key
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }

    /// How two records' values of ``key`` order under this sort key (`nil` = field absent).
    ///
    /// Ascending follows ``PredicateValue/sortOrder(_:_:)`` — absent and null values first;
    /// descending is its exact reverse, so absent values come last. Ties are
    /// `.orderedSame`; the engine breaks them (by record ID) to keep pages stable.
    public func compare(_ a: PredicateValue?, _ b: PredicateValue?) -> ComparisonResult {
        var a = a
        var b = b
        if let relativeLocation {
            a = a.flatMap(PredicateLocation.init).map { .double($0.distanceKilometres(to: relativeLocation)) }
            b = b.flatMap(PredicateLocation.init).map { .double($0.distanceKilometres(to: relativeLocation)) }
        }
        let result = PredicateValue.sortOrder(a, b)
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
