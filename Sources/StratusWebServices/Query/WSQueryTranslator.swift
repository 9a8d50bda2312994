import Foundation
package import Stratus

/// Turns a query dictionary into the engine's `CKQuery`: filters into one predicate format
/// with arguments (`NSPredicate(format:argumentArray:)`, ANDed, as Apple's filters are), sorts
/// into sort descriptors. It only translates: what the predicate means, and whether the engine
/// can run it, is the engine's to decide (decision 0005). ``dictionary(for:)`` is the client's
/// direction, CKQuery to query dictionary.
package struct WSQueryTranslator: Sendable {
    /// Reads and writes the filters' values.
    package var translator: WSRecordTranslator
    /// The zone references without a `zoneID` point into: the query's zone, else the default.
    package var zone: CKRecordZone.ID

    /// A query translator whose references without a `zoneID` point into `zone`.
    package init(translator: WSRecordTranslator, zone: CKRecordZone.ID = .default) {
        self.translator = translator
        self.zone = zone
    }

    /// The engine's query for `dictionary`, with errors naming `path` (such as `query`).
    ///
    /// - Throws: ``WSTranslationError`` whose reason names the filter or sort (`query.filterBy[0]:
    ///   …`) and what is wrong with it: an unknown or unsupported comparator, a missing field
    ///   name, a value not of its type (the server answers 400 `BAD_REQUEST` with it).
    package func query(from dictionary: WSQueryDictionary, path: String) throws(WSTranslationError) -> CKQuery {
        let query = CKQuery(
            recordType: dictionary.recordType, predicate: try predicate(dictionary.filterBy, path: path))
        // Sizes first: a list of a million sorts or values is refused before it is built.
        let sorts = dictionary.sortBy ?? []
        if sorts.count > Validation.maximumSortDescriptors {
            throw WSTranslationError(
                reason:
                    "\(path).sortBy holds \(sorts.count) sorts; the limit is \(Validation.maximumSortDescriptors)",
                exceedsALimit: true)
        }
        var descriptors: [NSSortDescriptor] = []
        for (index, sort) in sorts.enumerated() {
            do throws(WSTranslationError) {
                descriptors.append(try descriptor(sort))
            } catch {
                throw WSTranslationError(field: error.field, reason: "\(path).sortBy[\(index)]: \(error.reason)")
            }
        }
        if !descriptors.isEmpty { query.sortDescriptors = descriptors }
        return query
    }

    /// The filters ANDed into one predicate; `TRUEPREDICATE` for none.
    ///
    /// - Throws: ``WSTranslationError`` whose reason names the filter (`query.filterBy[0]: …`).
    package func predicate(_ filters: [WSQueryDictionary.Filter]?, path: String) throws(WSTranslationError)
        -> NSPredicate
    {
        let values = (filters ?? []).reduce(0) { $0 + Self.valueCount($1) }
        if values > QueryPredicate.maximumValues {
            throw WSTranslationError(
                reason:
                    "\(path).filterBy: Query filter exceeds the limit of values: \(QueryPredicate.maximumValues) (this one holds at least \(values), counting each value of a list, each word of a token search and each other filter)",
                exceedsALimit: true)
        }
        var formats: [String] = []
        var arguments: [Any] = []
        for (index, filter) in (filters ?? []).enumerated() {
            do throws(WSTranslationError) {
                let (format, values) = try part(filter)
                formats.append("(\(format))")
                arguments += values
            } catch {
                throw WSTranslationError(field: error.field, reason: "\(path).filterBy[\(index)]: \(error.reason)")
            }
        }
        guard !formats.isEmpty else { return NSPredicate(value: true) }
        return NSPredicate(format: formats.joined(separator: " AND "), argumentArray: arguments)
    }

    /// One filter as a format fragment and its arguments.
    private func part(_ filter: WSQueryDictionary.Filter) throws(WSTranslationError) -> (String, [Any]) {
        guard let comparator = WSComparator(rawValue: filter.comparator) else {
            let names = WSComparator.allCases.filter { WSComparator.unsupported[$0] == nil }.map(\.rawValue)
            throw WSTranslationError(
                reason: "comparator '\(filter.comparator)' is not a comparator (stratusd supports "
                    + names.joined(separator: ", ") + ")")
        }
        if let why = WSComparator.unsupported[comparator] {
            throw WSTranslationError(reason: "comparator \(comparator.rawValue) is not supported by stratusd: \(why)")
        }
        switch comparator {
        case .containsAnyTokens:
            return ("self CONTAINS %@", [try tokens(filter, comparator).joined(separator: " ")])
        case .containsAllTokens:
            let words = try tokens(filter, comparator)
            return (words.map { _ in "self CONTAINS %@" }.joined(separator: " AND "), words)
        default:
            break
        }
        let key = try WSSystemField.key(fieldName: filter.fieldName, systemFieldName: filter.systemFieldName)
        let value = try self.value(filter.fieldValue, key: key)
        if comparator.takesList, !(value is [Any]) {
            throw WSTranslationError(
                field: key, reason: "comparator \(comparator.rawValue) needs a list in fieldValue.value")
        }
        switch comparator {
        case .near:
            guard value is CLLocation else {
                throw WSTranslationError(field: key, reason: "comparator NEAR needs a LOCATION in fieldValue")
            }
            guard let metres = filter.distance, metres.isFinite, metres >= 0 else {
                throw WSTranslationError(field: key, reason: "comparator NEAR needs distance, a radius in metres")
            }
            return ("distanceToLocation:fromLocation:(%K, %@) <= %@", [key, value, metres / 1000])
        case .listContainsAll:
            let items = value as? [Any] ?? []
            guard !items.isEmpty else {
                throw WSTranslationError(field: key, reason: "comparator LIST_CONTAINS_ALL needs a non-empty list")
            }
            return (
                items.map { _ in "%K CONTAINS %@" }.joined(separator: " AND "),
                items.flatMap { item -> [Any] in [key, item] }
            )
        default:
            return (comparator.format ?? "%K == %@", [key, value])
        }
    }

    /// The values `filter` adds to the predicate as the engine counts them (decision 0005),
    /// counted before anything is built from them: the items of a list, the words of a token
    /// search (counted up to one past the limit), else 1.
    private static func valueCount(_ filter: WSQueryDictionary.Filter) -> Int {
        switch filter.fieldValue.value {
        case .array(let items): return max(1, items.count)
        case .string(let text)
        where filter.comparator == WSComparator.containsAllTokens.rawValue
            || filter.comparator == WSComparator.containsAnyTokens.rawValue:
            var words = 0
            var inWord = false
            for character in text {
                if character.isWhitespace {
                    inWord = false
                } else if !inWord {
                    inWord = true
                    words += 1
                    if words > QueryPredicate.maximumValues { break }
                }
            }
            return max(1, words)
        default: return 1
        }
    }

    /// The words of a token search's string value.
    private func tokens(_ filter: WSQueryDictionary.Filter, _ comparator: WSComparator) throws(WSTranslationError)
        -> [String]
    {
        guard case .string(let text) = filter.fieldValue.value else {
            throw WSTranslationError(reason: "comparator \(comparator.rawValue) needs a string of words in fieldValue")
        }
        let words = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !words.isEmpty else {
            throw WSTranslationError(reason: "comparator \(comparator.rawValue) needs at least one word")
        }
        return words
    }

    /// A filter's value as a predicate argument. System reference fields take a record name
    /// (a string) as well as a reference; system timestamps take milliseconds without a type.
    private func value(_ field: WSFieldDictionary, key: String) throws(WSTranslationError) -> Any {
        var field = field
        if WSSystemField.referenceKeys.contains(key), case .string(let name) = field.value {
            let zone = key == "___recordID" || key == "___parent" ? self.zone : CKRecordZone.ID.default
            return CKRecord.Reference(recordID: CKRecord.ID(recordName: name, zoneID: zone), action: .none)
        }
        if WSSystemField.timestampKeys.contains(key), field.type == nil { field.type = "TIMESTAMP" }
        return try translator.value(of: field, named: key, zone: zone).map { $0 as Any } ?? NSNull()
    }

    /// A sort dictionary as a sort descriptor; with `relativeLocation`, a location sort.
    private func descriptor(_ sort: WSQueryDictionary.Sort) throws(WSTranslationError) -> NSSortDescriptor {
        let key = try WSSystemField.key(fieldName: sort.fieldName, systemFieldName: sort.systemFieldName)
        guard let location = sort.relativeLocation, location != .null else {
            return NSSortDescriptor(key: key, ascending: sort.ascending ?? true)
        }
        if sort.ascending == false {
            throw WSTranslationError(
                field: key, reason: "a sort by relativeLocation is nearest first; ascending: false is not supported")
        }
        do throws(WSValueProblem) {
            return CKLocationSortDescriptor(key: key, relativeLocation: try translator.location(location))
        } catch {
            throw WSTranslationError(field: key, reason: "relativeLocation: \(error.message)")
        }
    }
}
