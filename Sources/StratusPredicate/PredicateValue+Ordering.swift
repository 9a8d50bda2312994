import Foundation

/// A number of either representation, for comparisons across `int`, `double` and `bool`.
enum PredicateNumber {
    case int(Int64)
    case double(Double)

    /// The number `value` holds (`bool` counts as 0 or 1); `nil` for non-numbers.
    init?(_ value: PredicateValue) {
        switch value {
        case .int(let integer): self = .int(integer)
        case .double(let double): self = .double(double)
        case .bool(let flag): self = .int(flag ? 1 : 0)
        default: return nil
        }
    }

    /// How `self` compares with `other`, exactly (no rounding of large integers); `nil` when
    /// either is NaN.
    func compare(_ other: PredicateNumber) -> ComparisonResult? {
        switch (self, other) {
        case (.int(let a), .int(let b)):
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.double(let a), .double(let b)):
            if a.isNaN || b.isNaN { return nil }
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.int(let a), .double(let b)):
            return PredicateNumber.compare(a, b)
        case (.double(let a), .int(let b)):
            return PredicateNumber.compare(b, a).map { result in
                switch result {
                case .orderedAscending: return .orderedDescending
                case .orderedDescending: return .orderedAscending
                case .orderedSame: return .orderedSame
                }
            }
        }
    }

    private static func compare(_ integer: Int64, _ double: Double) -> ComparisonResult? {
        if double.isNaN { return nil }
        // 2^63 is exactly representable; every Int64 is below it.
        if double >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if double < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let floor = double.rounded(.down)
        let floorInteger = Int64(floor)
        if integer < floorInteger { return .orderedAscending }
        if integer > floorInteger { return .orderedDescending }
        return double > floor ? .orderedAscending : .orderedSame
    }
}

extension PredicateValue {
    /// The order used to sort query results, a total order on all values: ascending, with
    /// ``null`` (and absent fields, passed as `nil`) first.
    ///
    /// - Values of different kinds order by kind: null, numbers (`bool`, `int` and `double`
    ///   together), strings, dates, bytes, references, locations, lists.
    /// - Numbers compare numerically across representations; NaN sorts after every number.
    /// - Strings compare **case-sensitively**, by Unicode scalar values after canonical
    ///   normalisation (Swift's `<`), the same order `<` uses in predicates ("B" < "a").
    /// - Dates by time; bytes lexicographically; references by record name, then zone name,
    ///   then owner name; locations by latitude then longitude; lists lexicographically.
    public static func sortOrder(_ a: PredicateValue?, _ b: PredicateValue?) -> ComparisonResult {
        let a = a ?? .null
        let b = b ?? .null
        let rankA = a.sortRank
        let rankB = b.sortRank
        if rankA != rankB {
            return rankA < rankB ? .orderedAscending : .orderedDescending
        }
        switch (a, b) {
        case (.null, .null):
            return .orderedSame
        case (.string(let x), .string(let y)):
            return order(x, y)
        case (.date(let x), .date(let y)):
            return order(x, y)
        case (.bytes(let x), .bytes(let y)):
            if x == y { return .orderedSame }
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
        case (.reference(let nameX, let zoneX, let ownerX), .reference(let nameY, let zoneY, let ownerY)):
            return chain([order(nameX, nameY), order(zoneX, zoneY), order(ownerX, ownerY)])
        case (.location(let latX, let lonX), .location(let latY, let lonY)):
            return chain([numberOrder(.double(latX), .double(latY)), numberOrder(.double(lonX), .double(lonY))])
        case (.list(let x), .list(let y)):
            for (elementX, elementY) in zip(x, y) {
                let result = sortOrder(elementX, elementY)
                if result != .orderedSame { return result }
            }
            return order(x.count, y.count)
        default:
            // Both numbers (same rank).
            guard let x = PredicateNumber(a), let y = PredicateNumber(b) else { return .orderedSame }
            return numberOrder(x, y)
        }
    }

    private var sortRank: Int {
        switch self {
        case .null: return 0
        case .bool, .int, .double: return 1
        case .string: return 2
        case .date: return 3
        case .bytes: return 4
        case .reference: return 5
        case .location: return 6
        case .list: return 7
        }
    }

    private static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (y < x ? .orderedDescending : .orderedSame)
    }

    private static func chain(_ results: [ComparisonResult]) -> ComparisonResult {
        results.first { $0 != .orderedSame } ?? .orderedSame
    }

    /// A total order on numbers: NaN after everything, equal to NaN.
    private static func numberOrder(_ x: PredicateNumber, _ y: PredicateNumber) -> ComparisonResult {
        if let result = x.compare(y) { return result }
        let xIsNaN = x.isNaN
        let yIsNaN = y.isNaN
        if xIsNaN && yIsNaN { return .orderedSame }
        return xIsNaN ? .orderedDescending : .orderedAscending
    }
}

extension PredicateNumber {
    /// Whether this is a NaN double.
    var isNaN: Bool {
        if case .double(let value) = self { return value.isNaN }
        return false
    }
}
