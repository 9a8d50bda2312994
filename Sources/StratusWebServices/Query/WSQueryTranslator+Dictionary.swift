import Foundation
package import Stratus

/// Queries out, as a client sends them: the client direction of ``query(from:path:)``.
extension WSQueryTranslator {
    /// `query` as the `query` dictionary of records/query: `recordType`, `filterBy` (the
    /// predicate as ``WSFilterWriter`` writes it: every comparison the engine runs, system
    /// fields, `BEGINSWITH`, `IN` / `NOT IN`, list membership, `NEAR`, token search; `now()` as
    /// the time of this call) and `sortBy` when the query has sort descriptors (a
    /// `CKLocationSortDescriptor` as `relativeLocation`).
    ///
    /// - Throws: ``WSTranslationError`` naming the part of the predicate, or the sort
    ///   descriptor, with no Web Services form.
    package func dictionary(for query: CKQuery) throws(WSTranslationError) -> JSONValue {
        let filters = try WSFilterWriter(translator: translator).filters(for: query.predicate)
        var members: [String: JSONValue] = ["recordType": .string(query.recordType), "filterBy": .array(filters)]
        var sorts: [JSONValue] = []
        for (index, descriptor) in (query.sortDescriptors ?? []).enumerated() {
            sorts.append(try sortDictionary(for: descriptor, index: index))
        }
        if !sorts.isEmpty { members["sortBy"] = .array(sorts) }
        return .object(members)
    }

    /// `{fieldName | systemFieldName, ascending}` (`systemFieldName` for the two timestamps),
    /// or `{fieldName, relativeLocation}` for a location sort.
    private func sortDictionary(for descriptor: NSSortDescriptor, index: Int) throws(WSTranslationError)
        -> JSONValue
    {
        guard let key = descriptor.stratusKey else {
            throw WSTranslationError(
                reason: "sortDescriptors[\(index)] has no key: make it with NSSortDescriptor(key:ascending:)")
        }
        var members: [String: JSONValue] = [:]
        // The engine sorts by its two timestamps only; other keys go as given, to sort as they
        // would locally.
        if let system = WSSystemField.name(forKey: key), let engineKey = WSSystemField.keys[system],
            WSSystemField.timestampKeys.contains(engineKey)
        {
            members["systemFieldName"] = .string(system)
        } else {
            members["fieldName"] = .string(key)
        }
        if let location = descriptor as? CKLocationSortDescriptor {
            members["relativeLocation"] = translator.dictionary(for: location.relativeLocation)
        } else {
            members["ascending"] = .bool(descriptor.stratusAscending)
        }
        return .object(members)
    }
}
