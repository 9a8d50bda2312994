import Foundation
import StratusBackend

/// Saving and deleting records: validation, save policies, conflicts, atomic zones, cascades,
/// change-log positions, indexes (decision 0004). One request is one backend transaction.
extension DatabaseContext {
    /// A save that passed every check, ready to be written.
    struct PlannedSave {
        let save: ModifyRequest.Save
        let existing: StoredRecord?
        let fields: FieldTable
        let parent: ReferenceValue?
        /// The parent's name when the parent exists only as another save of this request.
        let parentInBatch: String?
    }

    private enum ItemKey: Hashable {
        case save(Int)
        case delete(Int)
    }

    /// Applies `request` in one transaction. `cancelled` is asked just before the commit (an
    /// error rolls everything back); `journal` runs last in the same transaction with the
    /// outcome, so a long-lived operation's results commit with the writes (decision 0006). The
    /// body may run more than once (on a conflict): `journal` must only write to `txn`.
    package func modifyRecords(
        _ request: ModifyRequest, cancelled: () -> CKError? = { nil },
        journal: ((ModifyOutcome, any BackendWriteTransaction) throws -> Void)? = nil
    ) throws -> ModifyOutcome {
        try Validation.checkClientChangeToken(request.clientChangeTokenData)
        let grouping = try group(request)
        let checks = try checkWithoutStore(request)
        let now = Date().timeIntervalSinceReferenceDate
        let outcome = try engine.write { txn in
            var results = ItemResults(request, keepsEntries: journal != nil)
            let (reads, types) = firstReads(of: request, grouping: grouping)
            let preloaded = try PreloadedRows(reads, scans: subscriptionScans(recordTypes: types), txn)
            var meta = try loadMeta(txn, preloaded: preloaded)
            var schema = SchemaCache(context: self, preloaded: preloaded)
            let (savesByGroup, deletesByGroup) = grouping.items(of: request)
            // How many of the request's assets use each upload (``checkStagedUse``).
            var stagedUses = UploadUses()
            for (group, zoneID) in grouping.groups.zones.enumerated() {
                try modifyZone(
                    zoneID, saves: savesByGroup[group], deletes: deletesByGroup[group], request: request,
                    checks: checks, now: now, results: &results, meta: &meta, schema: &schema,
                    stagedUses: &stagedUses, preloaded: preloaded, txn)
            }
            try schema.flush(txn)
            try storeMeta(meta, txn)
            var outcome = results.outcome(of: request)
            outcome.notifiedLogs = try fireSubscriptions(results.changes, txn, preloaded: preloaded)
            // Cancelled before commit: roll everything back.
            if let error = cancelled() { throw error }
            try journal?(outcome, txn)
            return outcome
        }
        engine.notified(outcome.notifiedLogs)
        return outcome
    }

    /// The rows a modify reads before deciding anything, read together (``PreloadedRows``):
    /// the meta row, each zone's row, each saved record type's schema, and the pointers of the
    /// items of each zone whose number this process has seen (``ZoneNumberHints``); and the
    /// saved record types.
    private func firstReads(of request: ModifyRequest, grouping: Grouping) -> (keys: [[UInt8]], types: [String]) {
        var reads = [keys.meta]
        for (group, zoneID) in grouping.groups.zones.enumerated() {
            let zoneKey = keys.zone(zoneID.zoneName, zoneID.ownerName)
            reads.append(zoneKey)
            guard let number = engine.zoneNumbers.number(zoneKey) else { continue }
            let single = grouping.groups.zones.count == 1
            for (index, save) in request.saves.enumerated() where single || grouping.saveGroups[index] == group {
                reads.append(keys.record(number, save.id.recordName))
            }
            for (index, id) in request.deletes.enumerated() where single || grouping.deleteGroups[index] == group {
                reads.append(keys.record(number, id.recordName))
            }
        }
        // A request saves records of a few types: comparing names is cheaper than hashing each.
        var types: [String] = []
        for index in request.saves.indices where !types.contains(request.saves[index].recordType) {
            types.append(request.saves[index].recordType)
        }
        reads += types.map { keys.recordType($0) }
        return (reads, types)
    }

    /// A request's items grouped by zone.
    private struct Grouping {
        var groups = ZoneGroups()
        var saveGroups: [Int] = []
        var deleteGroups: [Int] = []

        /// The items by zone (zones in order of first appearance, items in request order).
        func items(of request: ModifyRequest) -> ([[ModifyRequest.Save]], [[(Int, CKRecord.ID)]]) {
            var savesByGroup = [[ModifyRequest.Save]](repeating: [], count: groups.zones.count)
            var deletesByGroup = [[(Int, CKRecord.ID)]](repeating: [], count: groups.zones.count)
            if groups.zones.count == 1 {
                savesByGroup[0] = request.saves
                deletesByGroup[0] = Array(request.deletes.enumerated().lazy.map { ($0, $1) })
            } else {
                for (save, group) in zip(request.saves, saveGroups) { savesByGroup[group].append(save) }
                for (index, group) in deleteGroups.enumerated() {
                    deletesByGroup[group].append((index, request.deletes[index]))
                }
            }
            return (savesByGroup, deletesByGroup)
        }
    }

    /// Refuses a request over the item limit or naming a record twice; groups its items by zone.
    private func group(_ request: ModifyRequest) throws -> Grouping {
        let total = request.saves.count + request.deletes.count
        try Validation.checkItemCount(total)
        // Duplicates are found by record name within each zone (no hashing of ID objects); the
        // zone groups are the transaction's grouping too.
        var grouping = Grouping()
        var namesByGroup: [Set<String>] = []
        grouping.saveGroups.reserveCapacity(request.saves.count)
        grouping.deleteGroups.reserveCapacity(request.deletes.count)
        for (isSave, id) in request.saves.lazy.map({ (true, $0.id) }) + request.deletes.lazy.map({ (false, $0) }) {
            let group = grouping.groups.group(of: id.zoneID)
            if group == namesByGroup.count { namesByGroup.append(Set(minimumCapacity: total)) }
            if isSave { grouping.saveGroups.append(group) } else { grouping.deleteGroups.append(group) }
            if !namesByGroup[group].insert(id.recordName).inserted {
                throw CKError.make(
                    .invalidArguments,
                    "You can't save the same record twice: record '\(id.recordName)' appears more than once in one request"
                )
            }
        }
        return grouping
    }

    /// What is known of the items before the transaction: failures that need no store, and the
    /// asset files each save reads.
    private struct ItemChecks {
        var preErrors: [ItemKey: CKError] = [:]
        var assetContents: [Int: [String: [UInt8]]] = [:]

        /// The asset file contents of save `index`, by file path.
        func assets(_ index: Int) -> [String: [UInt8]] {
            assetContents.isEmpty ? [:] : assetContents[index] ?? [:]
        }
    }

    /// Checks that need no store (roles, names, values), and asset files read before the
    /// transaction.
    private func checkWithoutStore(_ request: ModifyRequest) throws -> ItemChecks {
        var checks = ItemChecks()
        var validNames: [String] = []
        for save in request.saves {
            if let error = anonymousWriteError("record '\(save.id.recordName)'")
                ?? validate(save, validNames: &validNames)
            {
                checks.preErrors[.save(save.index)] = error
                continue
            }
            do {
                let contents = try assetFiles(of: save, policy: request.policy)
                if !contents.isEmpty { checks.assetContents[save.index] = contents }
            } catch let error as CKError {
                checks.preErrors[.save(save.index)] = error
            }
        }
        for (index, id) in request.deletes.enumerated() {
            if let error = anonymousWriteError("record '\(id.recordName)'") {
                checks.preErrors[.delete(index)] = error
            } else if let problem = Validation.recordNameProblem(id.recordName)
                ?? Validation.zoneNameProblem(id.zoneID.zoneName)
            {
                checks.preErrors[.delete(index)] = .make(.invalidArguments, problem)
            }
        }
        return checks
    }

    /// The contents of the local asset files `save` writes, by path.
    private func assetFiles(of save: ModifyRequest.Save, policy: SavePolicy) throws -> [String: [UInt8]] {
        var contents: [String: [UInt8]] = [:]
        for (field, value) in save.values {
            let assets = value.assets
            if assets.isEmpty { continue }
            let written = save.writesAllKeys(policy) || save.changedKeys.contains(field)
            for asset in assets {
                guard let file = asset.pendingFile else { continue }
                if asset.contentID.isEmpty {
                    contents[file.path] = try Engine.loadAssetFile(file, field: field)
                } else if written, let data = try? Data(contentsOf: file) {
                    // A fetched asset set on this record: if its content is not in this
                    // database, the transaction copies it from this local file.
                    contents[file.path] = Array(data)
                }
            }
        }
        return contents
    }

    /// Every item's result, by position in the request.
    private struct ItemResults {
        var saves: [Result<CKRecord, CKError>?]
        var deletes: [Result<Void, CKError>?]
        /// Every record written, before and after, when subscriptions may fire (decision 0014.1).
        var changes: [RecordChange] = []
        /// The change-log entry of each save written, by position in the request, when kept
        /// for the journal (``ModifyOutcome/storedEntries``); empty otherwise.
        var entries: [[UInt8]?]

        init(_ request: ModifyRequest, keepsEntries: Bool) {
            saves = .init(repeating: nil, count: request.saves.count)
            deletes = .init(repeating: nil, count: request.deletes.count)
            entries = keepsEntries ? .init(repeating: nil, count: request.saves.count) : []
        }

        /// Save `index` succeeded with `record`, stored as `entry`.
        mutating func saved(_ index: Int, _ record: CKRecord, entry: [UInt8]) {
            saves[index] = .success(record)
            if !entries.isEmpty { entries[index] = entry }
        }

        mutating func fail(_ key: ItemKey, _ error: CKError) {
            switch key {
            case .save(let i): saves[i] = .failure(error)
            case .delete(let i): deletes[i] = .failure(error)
            }
        }

        func outcome(of request: ModifyRequest) -> ModifyOutcome {
            var outcome = ModifyOutcome(
                saveResults: request.saves.map {
                    ($0.id, saves[$0.index] ?? .failure(.make(.internalError, "no result")))
                },
                deleteResults: request.deletes.enumerated().map {
                    ($1, deletes[$0] ?? .failure(.make(.internalError, "no result")))
                })
            if !entries.isEmpty { outcome.storedEntries = request.saves.map { entries[$0.index] } }
            return outcome
        }
    }

    /// Decides and writes one zone's items: every item is checked before anything is written,
    /// and in an atomic zone one failure fails them all.
    private func modifyZone(
        _ zoneID: CKRecordZone.ID, saves: [ModifyRequest.Save], deletes: [(Int, CKRecord.ID)],
        request: ModifyRequest, checks: ItemChecks, now: Double, results: inout ItemResults, meta: inout DatabaseMeta,
        schema: inout SchemaCache, stagedUses: inout UploadUses, preloaded: PreloadedRows,
        _ txn: any BackendWriteTransaction
    ) throws {
        guard var zone = try loadZone(zoneID, txn, preloaded: preloaded) else {
            let error = CKError.make(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist")
            for save in saves { results.fail(.save(save.index), checks.preErrors[.save(save.index)] ?? error) }
            for (index, _) in deletes { results.fail(.delete(index), checks.preErrors[.delete(index)] ?? error) }
            return
        }
        let atomicZone =
            request.atomic && CKRecordZone.Capabilities(rawValue: UInt(zone.capabilities)).contains(.atomic)
        let schemaBefore = schema

        // Every pointer the zone's items touch (read with the first reads when the zone's number
        // was known), then the live records, in two reads: a server backend answers them in two
        // round trips (or one) instead of one per record.
        let prefetched = try prefetch(
            zone: zone.number, saves: saves, deletes: deletes.map(\.1), preloaded: preloaded, txn)

        // Phase 1: decide every item without writing.
        var failures: [ItemKey: CKError] = [:]
        var planned = try planSaves(
            saves, zone: zone, prefetched: prefetched, request: request, checks: checks, failures: &failures,
            schema: &schema, stagedUses: &stagedUses, txn)
        try dropFailedSaves(
            &planned, of: saves, zone: zone, atomicZone: atomicZone, failures: &failures, schema: &schema,
            schemaBefore: schemaBefore, txn)
        var plannedDeletes: [(Int, CKRecord.ID, StoredRecord)] = []
        for (index, id) in deletes {
            if let error = checks.preErrors[.delete(index)] {
                failures[.delete(index)] = error
                continue
            }
            do {
                let stored = try planDelete(
                    id, mode: request.deleteMode(index), stored: try prefetched.record(id.recordName), txn)
                plannedDeletes.append((index, id, stored))
            } catch let error as CKError {
                failures[.delete(index)] = error
            }
        }

        if atomicZone && !failures.isEmpty {
            schema = schemaBefore
            let batchError = CKError.make(
                .batchRequestFailed,
                "Record will not be saved because of previous error in atomic zone '\(zoneID.zoneName)'")
            for save in saves { results.fail(.save(save.index), failures[.save(save.index)] ?? batchError) }
            for (index, _) in deletes { results.fail(.delete(index), failures[.delete(index)] ?? batchError) }
            return
        }
        for (key, error) in failures { results.fail(key, error) }

        // Phase 2: write.
        for plan in planned {
            let (record, stored, entry) = try apply(
                plan, pointer: prefetched.pointer(plan.save.id.recordName), zone: &zone, now: now,
                assets: checks.assets(plan.save.index), schema: &schema, txn)
            results.saved(plan.save.index, record, entry: entry)
            if firesSubscriptions {
                results.changes.append(
                    RecordChange(
                        zoneID: zoneID, recordName: plan.save.id.recordName, before: plan.existing, after: stored))
            }
        }
        var deleted = Set<String>()
        for (index, id, stored) in plannedDeletes {
            if !deleted.contains(id.recordName) {
                try deleteWithCascade(
                    name: id.recordName, stored: stored, zone: &zone, zoneID: zoneID, deleted: &deleted,
                    changes: &results.changes, schema: &schema, txn)
            }
            results.deletes[index] = .success(())
        }
        if !planned.isEmpty || !plannedDeletes.isEmpty {
            // The public database has no zone change fetch to return it to: not kept there,
            // where every user's save would rewrite the row every user's request reads (and one
            // a store kept before is dropped with the next write).
            if scope == .public {
                zone.clientChangeTokenData = nil
            } else if let token = request.clientChangeTokenData {
                zone.clientChangeTokenData = Array(token)
            }
            if zone.number != DatabaseContext.defaultZoneNumber {
                try recordDatabaseChange(.changed, zoneID: zoneID, zone: &zone, meta: &meta, txn)
            }
            try storeZone(zone, zoneID, txn)
        }
    }

    /// Plans each of a zone's saves; those that fail go to `failures`.
    private func planSaves(
        _ saves: [ModifyRequest.Save], zone: ZoneRow, prefetched: Prefetched, request: ModifyRequest,
        checks: ItemChecks, failures: inout [ItemKey: CKError], schema: inout SchemaCache,
        stagedUses: inout UploadUses, _ txn: any BackendReadTransaction
    ) throws -> [PlannedSave] {
        var planned: [PlannedSave] = []
        planned.reserveCapacity(saves.count)
        // Only parent checks ask which records this request saves.
        let savedNames =
            saves.contains { $0.system.parent != nil }
            ? Set(saves.filter { checks.preErrors[.save($0.index)] == nil }.map(\.id.recordName)) : []
        for save in saves {
            if !checks.preErrors.isEmpty, let error = checks.preErrors[.save(save.index)] {
                failures[.save(save.index)] = error
                continue
            }
            do {
                planned.append(
                    try plan(
                        save, existing: try prefetched.record(save.id.recordName), zone: zone,
                        policy: request.policy, savedNames: savedNames, assets: checks.assets(save.index),
                        schema: &schema, stagedUses: &stagedUses, txn))
            } catch let error as CKError {
                failures[.save(save.index)] = error
            }
        }
        return planned
    }

    /// Drops the planned saves that cannot be written after all. At most 750 deleteSelf
    /// referrers per record (rule 11 of decision 0004), and a parent saved in the same request
    /// must itself be saved: a child whose parent failed fails too (along chains). A save that
    /// fails frees no place for the references it would have dropped, so the count is taken
    /// again over the saves left until none fails; the schema of the failed saves is then taken
    /// back.
    private func dropFailedSaves(
        _ planned: inout [PlannedSave], of saves: [ModifyRequest.Save], zone: ZoneRow, atomicZone: Bool,
        failures: inout [ItemKey: CKError], schema: inout SchemaCache, schemaBefore: SchemaCache,
        _ txn: any BackendReadTransaction
    ) throws {
        var dropped = false
        while true {
            var failed = false
            let limitFailures = try deleteSelfLimitFailures(planned, zone: zone.number, txn)
            if !limitFailures.isEmpty {
                for (index, error) in limitFailures { failures[.save(index)] = error }
                planned.removeAll { limitFailures[$0.save.index] != nil }
                failed = true
            }
            if !atomicZone && !failures.isEmpty {
                failed = dropOrphans(&planned, of: saves, failures: &failures) || failed
            }
            // In an atomic zone one failure fails every save: no need to count again.
            guard failed else { break }
            dropped = true
            if atomicZone { break }
        }
        if dropped && !atomicZone {
            schema = schemaBefore
            for plan in planned {
                try schema.admit(
                    recordType: plan.save.recordType, fields: plan.fields, recordName: plan.save.id.recordName, txn)
            }
        }
    }

    /// Fails the planned saves whose parent, saved in the same request, failed (along chains);
    /// whether any was dropped.
    private func dropOrphans(
        _ planned: inout [PlannedSave], of saves: [ModifyRequest.Save], failures: inout [ItemKey: CKError]
    ) -> Bool {
        var failedNames = Set(saves.filter { failures[.save($0.index)] != nil }.map(\.id.recordName))
        func orphaned(_ plan: PlannedSave) -> Bool {
            plan.parentInBatch.map { failedNames.contains($0) } ?? false
        }
        var dropped = false
        while let orphan = planned.firstIndex(where: orphaned) {
            let child = planned.remove(at: orphan)
            failures[.save(child.save.index)] = .make(
                .referenceViolation,
                "the parent of record '\(child.save.id.recordName)', record '\(child.parentInBatch ?? "")', was not saved"
            )
            failedNames.insert(child.save.id.recordName)
            dropped = true
        }
        return dropped
    }

    /// The problem with a record that can be seen without the store, if any. `validNames` are
    /// field names found valid before: a save with the same names (most saves of a batch)
    /// skips their check; they become this save's once its names are found valid.
    private func validate(_ save: ModifyRequest.Save, validNames: inout [String]) -> CKError? {
        let id = save.id
        if let problem = Validation.recordNameProblem(id.recordName)
            ?? Validation.zoneNameProblem(id.zoneID.zoneName)
            ?? Validation.recordTypeProblem(save.recordType)
        {
            return .make(.invalidArguments, problem)
        }
        if scope == .public && !id.zoneID.isDefaultZone {
            return .make(
                .zoneNotFound,
                "Zone '\(id.zoneID.zoneName)' does not exist: the public database has only the default zone")
        }
        var size = 0
        let namesValid = save.values.keys == validNames
        for (name, value) in save.values {
            if !namesValid, let problem = Validation.fieldNameProblem(name) {
                return .make(.invalidArguments, problem)
            }
            if case .invalid(let description) = value {
                return .make(.invalidArguments, "field '\(name)' holds \(description), which CloudKit cannot store")
            }
            if case .list(let items) = value,
                items.contains(where: { if case .invalid = $0 { return true } else { return false } })
            {
                return .make(.invalidArguments, "field '\(name)' holds a list with a value CloudKit cannot store")
            }
            // The API refuses one when it is set (`FieldValue(recordValue:)`); values decoded from
            // bytes (a binary records/modify body, a long-lived operation's request) are checked here.
            if case .list(let items) = value,
                let index = items.firstIndex(where: { if case .list = $0 { return true } else { return false } })
            {
                return .make(
                    .invalidArguments,
                    "field '\(name)' holds a list inside a list (item \(index)), which CloudKit cannot store")
            }
            if case .list(let items) = value, let first = items.first?.schemaType,
                let index = items.firstIndex(where: { $0.schemaType != first })
            {
                return .make(
                    .invalidArguments,
                    "field '\(name)' holds a list mixing \(first.name) and \(items[index].schemaType.name) values (item \(index)); a list's items must share one type"
                )
            }
            for reference in value.references
            where reference.zoneName != id.zoneID.zoneName || reference.ownerName != id.zoneID.ownerName {
                return .make(
                    .invalidArguments,
                    "field '\(name)' references record '\(reference.recordName)' in zone '\(reference.zoneName)'; references cannot cross zones (record is in '\(id.zoneID.zoneName)')"
                )
            }
            size += name.utf8.count + value.storageSize
        }
        if !namesValid { validNames = save.values.keys }
        if size > Validation.maximumRecordSize {
            return .make(
                .limitExceeded,
                "record '\(id.recordName)' holds \(size) bytes of field data; the limit is \(Validation.maximumRecordSize) bytes (assets excluded)"
            )
        }
        if let parent = save.system.parent {
            guard case .reference(let ref) = parent else {
                return .make(.invalidArguments, "the parent of record '\(id.recordName)' must be a reference")
            }
            if ref.action != 0 {
                return .make(
                    .invalidArguments,
                    "the parent reference of record '\(id.recordName)' must use action .none, not .deleteSelf")
            }
            if ref.zoneName != id.zoneID.zoneName || ref.ownerName != id.zoneID.ownerName {
                return .make(.invalidArguments, "the parent of record '\(id.recordName)' must be in the same zone")
            }
        }
        return nil
    }

    /// The pointers and live records of a zone's items, read before any of them is written.
    private struct Prefetched {
        /// Every item's pointer (live or deleted), by record name; absent when there is none.
        var pointers: [String: RecordPointer] = [:]
        /// The change-log entries of the live records, by record name.
        var entries: [String: [UInt8]] = [:]

        // Most saves create records: the empty dictionaries are not even hashed into.
        func record(_ name: String) throws -> StoredRecord? {
            guard !entries.isEmpty, let bytes = entries[name] else { return nil }
            return try ChangeEntry.liveRecord(bytes)
        }

        func pointer(_ name: String) -> RecordPointer? {
            pointers.isEmpty ? nil : pointers[name]
        }
    }

    /// Two reads for the whole zone (decision 0008): the items' pointers in one `getMany`, then
    /// the entries of those that are live in a second (none when every item is new).
    private func prefetch(
        zone: Int64, saves: [ModifyRequest.Save], deletes: [CKRecord.ID], preloaded: PreloadedRows,
        _ txn: any BackendReadTransaction
    ) throws -> Prefetched {
        var names: [String] = []
        names.reserveCapacity(saves.count + deletes.count)
        for index in saves.indices { names.append(saves[index].id.recordName) }
        for id in deletes { names.append(id.recordName) }
        var result = Prefetched()
        var entryNames: [String] = []
        var entryKeys: [[UInt8]] = []
        for (index, bytes) in try preloaded.takeMany(names.map { keys.record(zone, $0) }, txn).enumerated() {
            guard let bytes else { continue }
            let pointer = try RecordPointer(decoding: bytes)
            result.pointers[names[index]] = pointer
            if pointer.isLive {
                entryNames.append(names[index])
                entryKeys.append(keys.change(zone, pointer.position))
            }
        }
        if !entryKeys.isEmpty {
            for (index, bytes) in try txn.getMany(entryKeys).enumerated() {
                guard let bytes else { throw EngineError.corruptValue }
                result.entries[entryNames[index]] = bytes
            }
        }
        return result
    }

    /// Checks one save against the store, the caller's role and the save policy or mode;
    /// returns what to write.
    private func plan(
        _ save: ModifyRequest.Save, existing: StoredRecord?, zone: ZoneRow, policy: SavePolicy,
        savedNames: Set<String>, assets: [String: [UInt8]], schema: inout SchemaCache,
        stagedUses: inout UploadUses, _ txn: any BackendReadTransaction
    ) throws -> PlannedSave {
        let id = save.id
        if let existing {
            // Creating a record that exists changes nothing: a conflict, whoever created it.
            if save.mode == .create {
                throw serverRecordChanged(save, existing, "record to insert already exists", txn)
            }
            if let error = creatorError(recordName: id.recordName, creator: existing.creatorUserRecordName) {
                throw error
            }
        }
        if let existing, existing.recordType != save.recordType {
            throw CKError.make(
                .invalidArguments,
                "record '\(id.recordName)' exists with type '\(existing.recordType)'; it cannot be saved as type '\(save.recordType)'"
            )
        }
        let fields =
            if let mode = save.mode {
                try fields(of: save, mode: mode, existing: existing, txn)
            } else {
                try fields(of: save, policy: policy, existing: existing, txn)
            }
        let size = fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageSize }
        if size > Validation.maximumRecordSize {
            throw CKError.make(
                .limitExceeded,
                "record '\(id.recordName)' would hold \(size) bytes of field data; the limit is \(Validation.maximumRecordSize) bytes"
            )
        }
        try checkAssetContents(fields, of: id, existing: existing, assets: assets, stagedUses: &stagedUses, txn)
        let parent = self.parent(of: save, existing: existing, policy: policy)
        var parentInBatch: String?
        if let parent, parent.recordName != existing?.parent?.recordName || existing == nil,
            try loadPointer(zone: zone.number, name: parent.recordName, txn)?.isLive != true
        {
            parentInBatch = parent.recordName
            if !savedNames.contains(parent.recordName) {
                throw CKError.make(
                    .referenceViolation,
                    "the parent of record '\(id.recordName)', record '\(parent.recordName)', does not exist and is not saved in the same request"
                )
            }
        }
        try schema.admit(recordType: save.recordType, fields: fields, recordName: id.recordName, txn)
        return PlannedSave(save: save, existing: existing, fields: fields, parent: parent, parentInBatch: parentInBatch)
    }

    /// The fields a save without a mode writes, under the request's `SavePolicy` (CloudKit's
    /// `CKModifyRecordsOperation` rules).
    private func fields(
        of save: ModifyRequest.Save, policy: SavePolicy, existing: StoredRecord?, _ txn: any BackendReadTransaction
    ) throws -> FieldTable {
        var fields: FieldTable
        switch policy {
        case .ifServerRecordUnchanged:
            if let existing {
                guard let tag = save.system.changeTag else {
                    throw serverRecordChanged(save, existing, "record to insert already exists", txn)
                }
                if tag != existing.changeTag {
                    throw serverRecordChanged(save, existing, "client oplock error updating record", txn)
                }
                fields = existing.fields
                applyChangedKeys(save, to: &fields)
            } else {
                if save.system.changeTag != nil {
                    throw CKError.make(
                        .unknownItem,
                        "record '\(save.id.recordName)' was deleted on the server; save a new CKRecord (without a change tag) to create it again"
                    )
                }
                fields = save.values
            }
        case .changedKeys:
            fields = existing?.fields ?? [:]
            if existing == nil {
                fields = save.values
            } else {
                applyChangedKeys(save, to: &fields)
            }
        case .allKeys:
            fields = existing?.fields ?? [:]
            for (key, value) in save.values { fields[key] = value }
            for key in save.changedKeys where save.values[key] == nil { fields[key] = nil }
        }
        return fields
    }

    /// The fields a save with its own `SaveMode` writes (decision 0012.3): the change tag is the
    /// mode's, and "the fields given" are the record's changed keys.
    private func fields(
        of save: ModifyRequest.Save, mode: SaveMode, existing: StoredRecord?, _ txn: any BackendReadTransaction
    ) throws -> FieldTable {
        let name = save.id.recordName
        var fields: FieldTable = [:]
        switch mode {
        case .create:
            break  // `plan` refused an existing record
        case .update(let tag), .replace(let tag):
            guard let existing else {
                throw CKError.make(
                    .unknownItem,
                    "record '\(name)' does not exist in zone '\(save.id.zoneID.zoneName)'; it cannot be updated")
            }
            if tag != existing.changeTag {
                throw serverRecordChanged(save, existing, "client oplock error updating record", txn, clientTag: tag)
            }
            if case .update = mode { fields = existing.fields }
        case .forceUpdate:
            fields = existing?.fields ?? [:]
        case .forceReplace:
            break
        }
        applyChangedKeys(save, to: &fields)
        return fields
    }

    /// The parent a save writes: the record's own when it is new, when its parent was set, or
    /// when the save writes every key; otherwise the stored one.
    private func parent(of save: ModifyRequest.Save, existing: StoredRecord?, policy: SavePolicy) -> ReferenceValue? {
        switch save.mode {
        case .replace, .forceReplace:
            if case .reference(let ref) = save.system.parent { return ref }
            return nil
        default:
            break
        }
        var parent = existing?.parent
        if existing == nil || save.system.parentChanged || save.writesAllKeys(policy) {
            if case .reference(let ref) = save.system.parent {
                parent = ref
            } else if existing == nil || save.system.parentChanged {
                parent = nil
            }
        }
        return parent
    }

    /// Refuses a save holding an asset fetched from another record whose content is gone: such
    /// an asset gets its own copy of the content (see `storeAssets`), taken from this database
    /// or from the asset's local file.
    private func checkAssetContents(
        _ fields: FieldTable, of id: CKRecord.ID, existing: StoredRecord?, assets: [String: [UInt8]],
        stagedUses: inout UploadUses, _ txn: any BackendReadTransaction
    ) throws {
        let owned = FieldValue.assetContentIDs(existing?.fields)
        for (field, value) in fields where value.containsAsset {
            for asset in value.assets where !asset.contentID.isEmpty && !owned.contains(asset.contentID) {
                if asset.stagedOnly {
                    try checkStagedUse(asset.contentID, field: field, of: id, stagedUses: &stagedUses, txn)
                    continue
                }
                let inFile = asset.pendingFile.map { assets[$0.path] != nil } ?? false
                if !inFile, try !assetParts.exists(asset.contentID, txn) {
                    throw CKError.make(
                        .assetFileNotFound,
                        "the content of the asset in field '\(field)' of record '\(id.recordName)' is no longer available; set a new CKAsset(fileURL:)"
                    )
                }
            }
        }
    }

    /// Checks that an upload's content (``AssetValue/stagedOnly``, a receipt's) is still
    /// staged when a request first uses it, and that the request's further uses (each a copy)
    /// stay within ``UploadUses/maximumCopies``: a later request cannot use it again, and one
    /// upload cannot be multiplied without bound.
    private func checkStagedUse(
        _ contentID: String, field: String, of id: CKRecord.ID, stagedUses: inout UploadUses,
        _ txn: any BackendReadTransaction
    ) throws {
        let uses = stagedUses.use(contentID)
        if stagedUses.copies > UploadUses.maximumCopies {
            throw CKError.make(
                .limitExceeded,
                "the asset in field '\(field)' of record '\(id.recordName)' would be copy \(stagedUses.copies) of an upload in this request; a request may use its uploads \(UploadUses.maximumCopies) times more than once"
            )
        }
        guard uses == 1, try txn.get(keys.stagedAsset(contentID)) == nil else { return }
        if try assetParts.exists(contentID, txn) {
            throw CKError.make(
                .invalidArguments,
                "the asset in field '\(field)' of record '\(id.recordName)' uses an upload already saved in a record by an earlier request; upload the content again"
            )
        }
        throw CKError.make(
            .assetFileNotFound,
            "the content of the asset in field '\(field)' of record '\(id.recordName)' is no longer available; upload it again"
        )
    }

    /// Checks one delete against the store, the caller's role and its mode; returns the record
    /// to delete.
    private func planDelete(
        _ id: CKRecord.ID, mode: DeleteMode, stored: StoredRecord?, _ txn: any BackendReadTransaction
    ) throws -> StoredRecord {
        guard let stored else {
            throw CKError.make(
                .unknownItem, "Record '\(id.recordName)' does not exist in zone '\(id.zoneID.zoneName)'")
        }
        if let error = creatorError(recordName: id.recordName, creator: stored.creatorUserRecordName) { throw error }
        if case .ifChangeTag(let tag) = mode, tag != stored.changeTag {
            let server = makeRecord(stored, id: id, desiredKeys: nil, txn)
            throw CKError.make(
                .serverRecordChanged,
                "client oplock error deleting record: record '\(id.recordName)' (server change tag \(stored.changeTag), client \(tag))",
                userInfo: [CKRecordChangedErrorServerRecordKey: server])
        }
        return stored
    }

    private func applyChangedKeys(_ save: ModifyRequest.Save, to fields: inout FieldTable) {
        for key in save.changedKeys { fields[key] = save.values[key] }
    }

    /// `serverRecordChanged` for `save`, carrying the server's, the client's and the ancestor
    /// record; `clientTag` is the tag the client claimed (the record's own unless a mode names
    /// one).
    private func serverRecordChanged(
        _ save: ModifyRequest.Save, _ existing: StoredRecord, _ reason: String, _ txn: any BackendReadTransaction,
        clientTag: String? = nil
    ) -> CKError {
        let server = makeRecord(existing, id: save.id, desiredKeys: nil, txn)
        let ancestor = CKRecord(recordType: save.recordType, recordID: save.id)
        let clientTag = clientTag ?? save.system.changeTag
        if let clientTag {
            ancestor.state.withLock { $0.system.changeTag = clientTag }
        }
        return .make(
            .serverRecordChanged,
            "\(reason): record '\(save.id.recordName)' (server change tag \(existing.changeTag), client \(clientTag ?? "none"))",
            userInfo: [
                CKRecordChangedErrorServerRecordKey: server,
                CKRecordChangedErrorClientRecordKey: save.record,
                CKRecordChangedErrorAncestorRecordKey: ancestor,
            ])
    }

    /// Writes one planned save: row, change-log entry, indexes, references, assets. Returns the
    /// record as saved, its stored form and its change-log entry's bytes.
    private func apply(
        _ plan: PlannedSave, pointer: RecordPointer?, zone: inout ZoneRow, now: Double, assets: [String: [UInt8]],
        schema: inout SchemaCache, _ txn: any BackendWriteTransaction
    ) throws -> (CKRecord, StoredRecord, [UInt8]) {
        let name = plan.save.id.recordName
        let position = zone.nextPosition
        zone.nextPosition += 1
        var fields = plan.fields
        // Store new asset contents and point the fields at them (records without assets, most
        // of them, skip this and the clean-up below).
        if fields.values.contains(where: \.containsAsset) {
            let owned = FieldValue.assetContentIDs(plan.existing?.fields)
            for (key, value) in fields where value.containsAsset {
                fields[key] = try storeAssets(value, contents: assets, owned: owned, txn)
            }
        }
        if let existing = plan.existing {
            try txn.clear(keys.change(zone.number, existing.position))
            if existing.fields.values.contains(where: \.containsAsset) {
                let kept = FieldValue.assetContentIDs(fields)
                for (_, value) in existing.fields {
                    for asset in value.assets where !kept.contains(asset.contentID) {
                        try assetParts.remove(asset.contentID, txn)
                    }
                }
            }
        } else if let pointer {
            // The record was deleted: its tombstone entry goes, the pointer is overwritten.
            try txn.clear(keys.change(zone.number, pointer.position))
        }
        let stored = StoredRecord(
            recordType: plan.save.recordType, position: position,
            changeTag: DatabaseContext.changeTag(position: position, zone: zone.number),
            creationDate: plan.existing?.creationDate ?? now, modificationDate: now,
            creator: plan.existing?.creatorUserRecordName ?? caller.userRecordName,
            modifier: caller.userRecordName, parent: plan.parent, fields: fields)
        let type = try schema.row(plan.save.recordType, txn)
        try txn.set(
            keys.record(zone.number, name),
            RecordPointer(state: .live, typeNumber: type.number, position: position).encoded())
        let entry = ChangeEntry(recordName: name, record: stored).encoded()
        try txn.set(keys.change(zone.number, position), entry)
        try updateValueIndexes(zone: zone.number, type: type, name: name, old: plan.existing, new: stored, txn)
        try updateBackReferences(zone: zone.number, name: name, old: plan.existing?.fields, new: fields, txn)

        // The saved record comes back as a new object; the app's instance is left unchanged,
        // as in CloudKit.
        return (makeRecord(stored, id: plan.save.id, desiredKeys: nil, txn), stored, entry)
    }

    /// Stores the content of new assets; `owned` lists the content IDs the record already
    /// holds. An asset fetched from another record (or database) gets its own copy of the
    /// content, so that deleting or changing the other record cannot take it away.
    private func storeAssets(
        _ value: FieldValue, contents: [String: [UInt8]], owned: Set<String>, _ txn: any BackendWriteTransaction
    ) throws -> FieldValue {
        switch value {
        case .asset(let asset) where asset.contentID.isEmpty:
            guard let file = asset.pendingFile, let bytes = contents[file.path] else { return value }
            let id = UUID().uuidString
            try assetParts.write(bytes, as: id, txn)
            return .asset(AssetValue(contentID: id, size: Int64(bytes.count), pendingFile: nil))
        case .asset(let asset) where !owned.contains(asset.contentID):
            if let adopted = try adoptStagedContent(asset, txn) { return .asset(adopted) }
            let id = UUID().uuidString
            if let file = asset.pendingFile, let pending = contents[file.path] {
                try assetParts.write(pending, as: id, txn)
                return .asset(AssetValue(contentID: id, size: Int64(pending.count), pendingFile: nil))
            }
            guard let size = try assetParts.copy(asset.contentID, as: id, txn) else {
                return value  // `plan` refused such a save
            }
            return .asset(AssetValue(contentID: id, size: size, pendingFile: nil))
        case .asset(let asset):
            return .asset(AssetValue(contentID: asset.contentID, size: asset.size, pendingFile: nil))
        case .list(let items):
            return .list(try items.map { try storeAssets($0, contents: contents, owned: owned, txn) })
        default:
            return value
        }
    }

    private func updateBackReferences(
        zone: Int64, name: String, old: FieldTable?, new: FieldTable?,
        _ txn: any BackendWriteTransaction
    ) throws {
        guard
            old?.values.contains(where: \.containsReference) == true
                || new?.values.contains(where: \.containsReference) == true
        else { return }
        let oldTargets = Set((old ?? [:]).values.flatMap(\.references).filter { $0.action == 1 }.map(\.recordName))
        let newTargets = Set((new ?? [:]).values.flatMap(\.references).filter { $0.action == 1 }.map(\.recordName))
        for target in oldTargets.subtracting(newTargets) {
            try txn.clear(keys.backReference(zone, target: target, referrer: name))
        }
        for target in newTargets.subtracting(oldTargets) {
            try txn.set(keys.backReference(zone, target: target, referrer: name), [])
        }
    }

    /// Deletes a record and, in the same transaction, every record that refers to it with
    /// `deleteSelf`, recursively. Each deletion leaves a tombstone at a new change position.
    private func deleteWithCascade(
        name: String, stored: StoredRecord, zone: inout ZoneRow, zoneID: CKRecordZone.ID, deleted: inout Set<String>,
        changes: inout [RecordChange], schema: inout SchemaCache, _ txn: any BackendWriteTransaction
    ) throws {
        var work: [(String, StoredRecord)] = [(name, stored)]
        while let (current, record) = work.popLast() {
            guard deleted.insert(current).inserted else { continue }
            if firesSubscriptions {
                changes.append(RecordChange(zoneID: zoneID, recordName: current, before: record, after: nil))
            }
            let position = zone.nextPosition
            zone.nextPosition += 1
            let type = try schema.existingRow(record.recordType, txn)
            try txn.clear(keys.change(zone.number, record.position))
            // The pointer stays, deleted: it is the tombstone (decision 0008).
            try txn.set(
                keys.record(zone.number, current),
                RecordPointer(state: .deleted, typeNumber: type?.number ?? 0, position: position).encoded())
            try txn.set(
                keys.change(zone.number, position),
                ChangeEntry(recordName: current, deletedRecordType: record.recordType).encoded())
            if let type {
                try updateValueIndexes(zone: zone.number, type: type, name: current, old: record, new: nil, txn)
            }
            try updateBackReferences(zone: zone.number, name: current, old: record.fields, new: nil, txn)
            try removeAssets(of: record.fields, txn)
            // Referrers with deleteSelf die with their target.
            let referrers = keys.backReferences(zone.number, target: current)
            var range = referrers
            while true {
                let page = try txn.scan(range, limit: 256)
                for pair in page {
                    var reader = OrderedKeyReader(pair.key, from: referrers.lowerBound.count)
                    let referrer = try reader.readString()
                    if !deleted.contains(referrer),
                        let referring = try loadRecord(zone: zone.number, name: referrer, txn)
                    {
                        work.append((referrer, referring))
                    }
                }
                guard let last = page.last, page.count == 256 else { break }
                range = KeyRange(from: last.key + [0], to: range.upperBound)
            }
            try txn.clearRange(referrers)
        }
    }
}

extension FieldValue {
    /// Whether this value is or holds a reference, without building an array.
    var containsReference: Bool {
        switch self {
        case .reference: return true
        case .list(let items): return items.contains(where: \.containsReference)
        default: return false
        }
    }

    /// Whether this value is or holds an asset, without building an array.
    var containsAsset: Bool {
        switch self {
        case .asset: return true
        case .list(let items): return items.contains(where: \.containsAsset)
        default: return false
        }
    }

    /// The content IDs of the assets among `fields`.
    static func assetContentIDs(_ fields: FieldTable?) -> Set<String> {
        guard let fields, fields.values.contains(where: \.containsAsset) else { return [] }
        return Set(fields.values.flatMap(\.assets).map(\.contentID))
    }

    /// The references inside this value.
    var references: [ReferenceValue] {
        switch self {
        case .reference(let r): return [r]
        case .list(let items): return items.flatMap(\.references)
        default: return []
        }
    }
}
