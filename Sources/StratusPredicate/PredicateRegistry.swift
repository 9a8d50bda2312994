import Foundation

/// What `NSPredicate(format:…)` stores for a predicate it created.
struct ParsedPredicate: Sendable {
    /// The format string as given.
    let format: String
    /// The parsed expression, or why parsing failed.
    let result: Result<QueryPredicate, QueryPredicateError>
}

/// The side tables for data Foundation's classes cannot hold on Linux.
enum PredicateRegistry {
    /// Parsed forms of predicates made by `NSPredicate(format:…)`.
    static let predicates = ObjectSideTable<ParsedPredicate>()
    /// Keys of sort descriptors made by `NSSortDescriptor(key:ascending:)` (the key may be
    /// `nil`).
    static let sortKeys = ObjectSideTable<String?>()
}

/// Reads Foundation's `predicateFormat` through a protocol requirement, which does not carry
/// the deprecation corelibs puts on the property.
protocol FoundationPredicateFormat {
    var predicateFormat: String { get }
}

extension NSPredicate: FoundationPredicateFormat {}

extension NSPredicate {
    /// Foundation's own `predicateFormat` ("TRUEPREDICATE", "FALSEPREDICATE", and
    /// "BLOCKPREDICATE" for block predicates on Linux).
    var foundationPredicateFormat: String {
        (self as any FoundationPredicateFormat).predicateFormat
    }
}
