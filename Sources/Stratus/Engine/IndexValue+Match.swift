import Foundation
import StratusBackend
import StratusPredicate

/// The keys of a match index (decision 0019.5): values as CloudKit compares them for equality.
/// A string is folded (case- and diacritic-insensitive, then NFC, first 200 bytes) because
/// string equality in CloudKit ignores case; a list has one key per distinct element; other
/// values are encoded as in the value index.
extension IndexValue {
    /// Whether a field of `type` gets a match index: strings and lists of what an index can
    /// encode (a scalar of another type is matched through its value index).
    static func hasMatchIndex(_ type: SchemaType) -> Bool {
        switch type {
        case .string, .stringList, .numberList, .timestampList, .referenceList: return true
        default: return false
        }
    }

    /// The pseudo-field whose match index holds the tokens of a record's searchable strings
    /// (`self CONTAINS 'word'`, decision 0019.5): one entry per distinct token.
    static let tokensField = "___tokens"

    /// The token keys of a record: its searchable strings' tokens, as the evaluator makes them.
    static func tokenKeys(_ record: StoredRecord) -> [[UInt8]] {
        PredicateTokenizer.tokenize(record.fields.values.flatMap(\.searchableStrings)).sorted().map {
            stringElement($0, terminated: true)
        }
    }

    /// The group of one token of a search (already folded by the tokenizer).
    static func tokenBounds(_ token: String) -> IndexBounds {
        .startingWith(stringElement(token, terminated: true))
    }

    /// The distinct match keys of a stored value (none for a missing value).
    static func matchKeys(_ value: FieldValue?) -> [[UInt8]] {
        guard let value else { return [] }
        if case .list(let items) = value {
            var seen = Set<[UInt8]>()
            return items.compactMap(matchKey).filter { seen.insert($0).inserted }
        }
        return matchKey(value).map { [$0] } ?? []
    }

    private static func matchKey(_ value: FieldValue) -> [UInt8]? {
        if case .string(let s) = value { return foldedElement(s) }
        return encode(value)
    }

    /// The match key a constant compared for equality can equal, for a field of `type`: the
    /// key of its group (a number's double prefix, which an integer's group continues).
    static func matchBounds(_ constant: PredicateValue, type: SchemaType) -> IndexBounds? {
        switch (type, constant) {
        case (.string, .string(let s)), (.stringList, .string(let s)):
            guard foldsAlike(s) else { return nil }
            return .startingWith(foldedElement(s))
        case (.numberList, _), (.timestampList, _), (.referenceList, _):
            let element = SchemaType(rawValue: type.rawValue & 0x0F) ?? .invalid
            return QueryPlan.equalityBounds(constant, type: element)
        default:
            return nil
        }
    }

    /// The folded elements that can belong to a string starting with `prefix` (`BEGINSWITH`,
    /// case-sensitive or not): folding works character by character, so a string that starts
    /// with `prefix` folds to one that starts with `prefix` folded.
    static func foldedPrefixBounds(_ prefix: String) -> IndexBounds {
        .startingWith(stringElement(PredicateTokenizer.fold(prefix), terminated: false))
    }

    /// Whether `key` is the first of `keys` inside `bounds`: a record met in several groups of
    /// a range (a list's elements) is taken at the first.
    static func isFirstKey(_ key: [UInt8], of keys: [[UInt8]], inside bounds: [IndexBounds]) -> Bool {
        !keys.contains { other in
            KeyRange.less(other, key)
                && bounds.contains { !KeyRange.less(other, $0.lower) && KeyRange.less(other, $0.upper) }
        }
    }

    /// Whether every string CloudKit's equality (or `BEGINSWITH[c]`) calls equal to `s` (or
    /// prefixed by it) has its match key in `s`'s group (or range).
    ///
    /// The match key folds case and diacritics together, which is what `==[d]` compares. `==`
    /// folds case alone, and the two disagree on one character: U+0345 (ypogegrammeni, alone
    /// or in U+1FB3 ᾳ and its kin) folds to ι (U+03B9) by case, but is dropped as a diacritic,
    /// so "ᾳ" equals "ΑΙ" while their keys are "α" and "αι". Elsewhere, folding diacritics
    /// after case changes nothing that case folding alone tells apart. A constant whose case
    /// folding holds a ι, accented or not, is therefore not looked up in the index (the query filters it among the
    /// records another conjunct or a scan reads); every other one is.
    static func foldsAlike(_ s: String) -> Bool {
        // Decomposed: ί (U+03AF) and the other accented iotas hold a ι that `==` sees, since it
        // compares canonical equivalents ("αί" equals "α\u{345}\u{301}", whose key is "α").
        !s.folding(options: [.caseInsensitive], locale: nil).decomposedStringWithCanonicalMapping.unicodeScalars
            .contains("\u{3B9}")
    }

    /// A string's folded element: equal for strings CloudKit's equality calls equal.
    static func foldedElement(_ s: String) -> [UInt8] {
        stringElement(s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil), terminated: true)
    }
}
