import Foundation

/// Lets the converter see through `Optional` values stored in an `Any`.
private protocol OptionalArgument {
    /// The wrapped value, or `nil`.
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    fileprivate var wrappedArgument: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}

extension PredicateValue {
    /// Converts a predicate argument of any type.
    ///
    /// In order: `nil` (also a nested `Optional`) and `NSNull` become ``null``; a
    /// ``PredicateValueConvertible`` gives its own value; arrays (`[Any]`, `NSArray`) and sets
    /// (`Set`, `NSSet`) become ``list(_:)`` with each element converted the same way (sets in
    /// ascending ``sortOrder(_:_:)``). Anything else throws a ``QueryPredicateError`` of code
    /// ``QueryPredicateError/Code/argument`` naming the type.
    public init(argument: Any) throws(QueryPredicateError) {
        if let optional = argument as? any OptionalArgument {
            guard let wrapped = optional.wrappedArgument else {
                self = .null
                return
            }
            self = try PredicateValue(argument: wrapped)
            return
        }
        if let convertible = argument as? any PredicateValueConvertible {
            self = convertible.predicateValue
            return
        }
        if let array = argument as? [Any] {
            var elements: [PredicateValue] = []
            elements.reserveCapacity(array.count)
            for element in array {
                elements.append(try PredicateValue(argument: element))
            }
            self = .list(elements)
            return
        }
        if let set = argument as? NSSet {
            var elements: [PredicateValue] = []
            for element in set {
                elements.append(try PredicateValue(argument: element))
            }
            self = .list(elements.sorted { PredicateValue.sortOrder($0, $1) == .orderedAscending })
            return
        }
        if let set = argument as? Set<AnyHashable> {
            var elements: [PredicateValue] = []
            for element in set {
                elements.append(try PredicateValue(argument: element.base))
            }
            self = .list(elements.sorted { PredicateValue.sortOrder($0, $1) == .orderedAscending })
            return
        }
        throw QueryPredicateError(
            .argument,
            "Unsupported argument type '\(type(of: argument))': CloudKit predicates compare strings, numbers, dates, data, references, locations and lists of them"
        )
    }
}
