import Foundation
import StratusPredicate

/// The value a public query subscription requires of a record's field, by which a public
/// commit finds it (decision 0014.8): the first conjunct `field == constant` of its predicate.
///
/// The value is kept in a coarse form (``form(_:_:)``) that every value CloudKit's equality
/// calls equal to the constant shares; the form only narrows the subscriptions a commit judges,
/// each candidate is still judged by its whole predicate.
struct PublicSubscriptionKey: Hashable, Sendable {
    /// Which of the field's values are equal to a constant: the field and how strings compare.
    struct Field: Hashable, Sendable {
        /// The field as the predicate names it.
        var name: String
        /// Whether strings compare ignoring diacritics too (`==[d]`); they always ignore case.
        var ignoresDiacritics: Bool
    }

    let field: Field
    /// The constant's coarse form.
    let value: [UInt8]

    /// The key of `predicate`, or `nil` when no conjunct requires a value (`priority > 5`, an
    /// `OR`, a list constant).
    init?(_ predicate: QueryPredicate) {
        let conjuncts: [QueryPredicate]
        switch predicate {
        case .comparison: conjuncts = [predicate]
        case .and(let subpredicates): conjuncts = subpredicates
        default: return nil
        }
        for case .comparison(let comparison) in conjuncts {
            guard comparison.quantifier == .direct, comparison.operator == .equalTo, !comparison.isTokenSearch
            else { continue }
            let pair: (String, PredicateValue)
            switch (comparison.left, comparison.right) {
            case (.key(let key), .constant(let constant)), (.constant(let constant), .key(let key)):
                pair = (key, constant)
            default:
                continue
            }
            let field = Field(name: pair.0, ignoresDiacritics: comparison.options.contains(.diacriticInsensitive))
            guard let value = Self.form(pair.1, field) else { continue }
            self.field = field
            self.value = value
            return
        }
        return nil
    }

    /// The key of a stored subscription's predicate (`nil`: it names no value, or it does not
    /// parse, which a stored one always does).
    init?(_ predicate: StoredPredicate) {
        guard let expression = predicate.expression else { return nil }
        self.init(expression)
    }

    /// The forms under which a subscription requiring `field` to hold a value can match a
    /// record holding `value` there: its own, or each element's of a list (`==` on a list field
    /// is membership).
    static func forms(of value: PredicateValue?, _ field: Field) -> [[UInt8]] {
        guard let value else { return [] }
        if let elements = value.listElements { return elements.compactMap { form($0, field) } }
        return form(value, field).map { [$0] } ?? []
    }

    /// The coarse form of `value`, equal for values CloudKit's equality calls equal; `nil` for
    /// values a key does not hold (null, bytes, locations, lists, NaN).
    ///
    /// - Strings: folded exactly as the evaluator compares them (`QueryPredicate+Evaluation`:
    ///   case, and with `[d]` diacritics), in canonical composition, the first 200 bytes
    ///   (decision 0014.8). Two strings the evaluator calls equal fold to canonically equivalent
    ///   strings, so to the same bytes. Folding both ways at once would not do: a character may
    ///   fold to two letters with case alone but lose one of them with diacritics (U+1FB3).
    /// - References: their record name folded as a string (a reference equals the string that
    ///   is its record name; two references are equal only with equal names).
    /// - Numbers and Booleans: the double they equal (an integer equals a double only when the
    ///   double holds it exactly; −0 and 0 are one form).
    /// - Dates: their seconds since the reference date.
    static func form(_ value: PredicateValue, _ field: Field) -> [UInt8]? {
        var key = OrderedKey(capacity: 16)
        switch value {
        case .string(let string):
            key.append(tag: 1)
            key.append(raw: folded(string, field))
        case .reference(let recordName, _, _):
            key.append(tag: 1)
            key.append(raw: folded(recordName, field))
        case .int(let integer):
            key.append(tag: 2)
            key.append(double: Double(integer))
        case .bool(let flag):
            key.append(tag: 2)
            key.append(double: flag ? 1 : 0)
        case .double(let double):
            guard !double.isNaN else { return nil }
            key.append(tag: 2)
            key.append(double: double == 0 ? 0 : double)
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            guard !seconds.isNaN else { return nil }
            key.append(tag: 3)
            key.append(double: seconds == 0 ? 0 : seconds)
        case .null, .bytes, .location, .list:
            return nil
        }
        return key.bytes
    }

    /// `string` as the evaluator's equality prepares it for `field`, as an index element.
    private static func folded(_ string: String, _ field: Field) -> [UInt8] {
        let options: String.CompareOptions =
            field.ignoresDiacritics ? [.caseInsensitive, .diacriticInsensitive] : [.caseInsensitive]
        return IndexValue.stringElement(string.folding(options: options, locale: nil), terminated: true)
    }
}
