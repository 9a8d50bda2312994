import Foundation
package import Stratus

/// A predicate written as filter dictionaries (Apple's *Filter Dictionary*): the inverse of
/// ``WSQueryTranslator``'s filters, up to equivalence — what the server reads back selects the
/// same records. `BETWEEN` becomes two filters, `NOT (a < b)` the opposite ordering,
/// `self CONTAINS 'words'` `CONTAINS_ANY_TOKENS`, `distanceToLocation:fromLocation:` `NEAR`.
///
/// Used for a client's queries (``WSQueryTranslator/dictionary(for:)``) and for the server's
/// answers about query subscriptions.
package struct WSFilterWriter: Sendable {
    /// Writes the filters' values (references' zones).
    package var translator: WSRecordTranslator
    /// The time `now()` stands for: Web Services filters have no function, so it is sent as a
    /// TIMESTAMP.
    package var now: Date

    /// A filter writer.
    package init(translator: WSRecordTranslator, now: Date = Date()) {
        self.translator = translator
        self.now = now
    }

    /// The filters of `predicate`, to be ANDed.
    ///
    /// - Throws: ``WSTranslationError`` naming the part of the predicate with no Web Services
    ///   form (`OR`, `FALSEPREDICATE`, a negated `AND`, `[cd]` options, `ENDSWITH`, …).
    package func filters(for predicate: NSPredicate) throws(WSTranslationError) -> [JSONValue] {
        switch predicate.stratusPredicate {
        case .success(let expression): return try filters(for: expression)
        case .failure(let error): throw WSTranslationError(reason: "the predicate does not parse: \(error.message)")
        }
    }

    /// The filters of `expression`, to be ANDed.
    ///
    /// - Throws: ``WSTranslationError`` as ``filters(for:)-(NSPredicate)``.
    package func filters(for expression: QueryPredicate) throws(WSTranslationError) -> [JSONValue] {
        switch expression {
        case .true:
            return []
        case .and(let parts):
            var result: [JSONValue] = []
            for part in parts { result += try filters(for: part) }
            return result
        case .comparison(let comparison):
            return try filters(comparison, negated: false)
        case .not(.not(let inner)):
            return try filters(for: inner)
        case .not(.comparison(let comparison)):
            return try filters(comparison, negated: true)
        case .false, .or, .not:
            throw WSTranslationError(
                reason: "'\(expression)' has no Web Services form: filters are comparisons of one field, ANDed")
        }
    }
}
