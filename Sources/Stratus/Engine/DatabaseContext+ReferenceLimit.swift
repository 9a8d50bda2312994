import StratusBackend

/// CloudKit's limit on `deleteSelf` references pointing at one record (decision 0004, rule 11).
extension DatabaseContext {
    /// The most records that may refer to one record with `deleteSelf`.
    static let maximumDeleteSelfReferrers = 750

    /// The saves of `planned` (one zone's, in request order) that would make some record the
    /// target of more than ``maximumDeleteSelfReferrers`` `deleteSelf` references, each with
    /// its `limitExceeded` error, by the save's index in the request.
    ///
    /// A target's referrers are those stored, less the saves of this request that drop their
    /// reference to it, plus the saves that add one, counted in request order: the save that
    /// would be the 751st and every later one fail. Saves that keep a reference they had are not
    /// counted again. Only saves that add a `deleteSelf` reference pay for a count (one scan of
    /// the target's back-references, at most 751 keys).
    func deleteSelfLimitFailures(
        _ planned: [PlannedSave], zone: Int64, _ txn: any BackendReadTransaction
    ) throws -> [Int: CKError] {
        var adding: [String: [Int]] = [:]
        var dropping: [String: Int] = [:]
        for (position, plan) in planned.enumerated() {
            let new = Self.deleteSelfTargets(plan.fields)
            let old = plan.existing.map { Self.deleteSelfTargets($0.fields) } ?? []
            if new.isEmpty && old.isEmpty { continue }
            for target in new.subtracting(old) { adding[target, default: []].append(position) }
            for target in old.subtracting(new) { dropping[target, default: 0] += 1 }
        }
        guard !adding.isEmpty else { return [:] }
        var failures: [Int: CKError] = [:]
        let limit = Self.maximumDeleteSelfReferrers
        for (target, adders) in adding {
            let dropped = dropping[target] ?? 0
            var count =
                try txn.scan(keys.backReferences(zone, target: target), limit: limit + 1 + dropped).count - dropped
            for position in adders {
                count += 1
                guard count > limit else { continue }
                let save = planned[position].save
                failures[save.index] = .make(
                    .limitExceeded,
                    "saving record '\(save.id.recordName)' would give record '\(target)' \(count) records referring to it with deleteSelf; CloudKit allows at most \(limit)"
                )
            }
        }
        return failures
    }

    /// The names of the records `fields` refer to with `deleteSelf`.
    static func deleteSelfTargets(_ fields: FieldTable) -> Set<String> {
        guard fields.values.contains(where: \.containsReference) else { return [] }
        return Set(fields.values.flatMap(\.references).filter { $0.action == 1 }.map(\.recordName))
    }
}
