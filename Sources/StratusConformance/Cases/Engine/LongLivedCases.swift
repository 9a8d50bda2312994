import Foundation
import Stratus

/// Long-lived operations: invariants 55–60 of `cloudkit-semantics.md` §11 E.
///
/// Every ID starts with `longLived.`. A case kills a "process" by closing its backend handle
/// while an operation is held inside a callback (``LongLivedProcess``), then opens the storage
/// again as the relaunched app would, lists the operation, fetches its proxy and re-adds it.
enum LongLivedCases {
    static var all: [ConformanceCase] {
        [
            listedOnlyAfterPersisted, replaysModifyWithoutRewriting, resumesModifyNotYetApplied,
            resumesZoneChangesFromLastToken, replaysEveryOperationType, twoRunsApplyOnce,
            leavesListWhenDeliveredOrCancelled, keptForRetentionThenPurged, flagReadOnceAtStart,
            ordinaryOperationsNeverJournal, proxyMustBeAddedToADatabase,
        ]
        .map { $0.reachingStorage(storageReason) }
    }

    /// Why the long-lived cases need the storage: they kill a simulated process by closing its
    /// backend handle, set the journal's clock, and read the journal's keys.
    static let storageReason =
        "simulates a process killed mid-operation by closing its backend handle, and reads the journal's keys; a remote container's operation runs on the server instead (the remote life cycle is checked with real processes by RemoteLifeCycleTests and RemoteLongLivedTests)"

    // MARK: 55

    static let listedOnlyAfterPersisted = ConformanceCase(
        "longLived.listedOnlyAfterPersisted", invariants: [55],
        "A long-lived operation is not listed before it starts nor while its persisted block runs; it is listed once the block returned, and no longer once its completion was delivered."
    ) { context in
        let process = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(process.database, "Listed", records: 2, in: context)
        let op = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "r0", zoneID: zoneID)])
        op.configuration.isLongLived = true
        let id = op.operationID
        context.step("not started")
        try context.expect(!(try process.listed(context)).contains(id), "an operation not started is not listed")

        let observations = Collector<(String, Bool)>()
        let container = process.container
        op.longLivedOperationWasPersistedBlock = {
            observations.append(("persisted block", (try? LongLived.listed(container, context).contains(id)) ?? true))
        }
        op.perRecordResultBlock = { _, _ in
            observations.append(("first callback", (try? LongLived.listed(container, context).contains(id)) ?? false))
        }
        context.step("run")
        Ops.run(op, on: process.database)
        let seen = observations.values
        try context.expectEqual(seen.map(\.0), ["persisted block", "first callback"], "what ran")
        try context.expect(!seen[0].1, "not listed while the persisted block runs", actual: "listed")
        try context.expect(seen[1].1, "listed once the persisted block returned", actual: "not listed")
        context.step("after completion")
        try context.expect(!(try process.listed(context)).contains(id), "not listed once its completion was delivered")
        try process.stop(context)
    }

    // MARK: 56

    static let replaysModifyWithoutRewriting = ConformanceCase(
        "longLived.replaysModifyWithoutRewriting", invariants: [56],
        "A long-lived modify killed while delivering its results is replayed by its proxy after a restart: every callback in order, the same change tags, no write done again."
    ) { context in
        let first = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(first.database, "Modify", records: 2, in: context)
        let stale = makeRecord("r1", zone: zoneID, ["n": 100])  // no change tag: conflicts
        let saves = [
            makeRecord("a", zone: zoneID, ["n": 1]), makeRecord("b", zone: zoneID, ["n": 2]), stale,
        ]
        let op = CKModifyRecordsOperation(
            recordsToSave: saves, recordIDsToDelete: [CKRecord.ID(recordName: "r0", zoneID: zoneID)])
        op.isAtomic = false
        op.clientChangeTokenData = Data([7, 7])
        let log = CallbackLog.holding(atFirst: "save b")
        context.step("start and kill at the second result")
        try first.startHeld(op, log, context)
        try first.kill(holding: log, context)
        let original = log.all

        context.step("restart")
        let second = try LongLivedProcess.start(context)
        let before = try LongLived.zoneState(second.database, zoneID, in: context)
        try context.expect(
            try second.listed(context).contains(op.operationID), "the operation is listed after a restart")
        guard let proxy = try second.proxy(op.operationID, context) as? CKModifyRecordsOperation else {
            throw context.failure(expected: "a CKModifyRecordsOperation proxy", actual: "none or another class")
        }
        try context.expectEqual(proxy.operationID, op.operationID, "the proxy's operationID")
        try context.expectEqual(
            (proxy.recordsToSave ?? []).map(\.recordID.recordName), ["a", "b", "r1"], "the proxy's recordsToSave")
        try context.expectEqual(proxy.recordIDsToDelete?.map(\.recordName) ?? [], ["r0"], "recordIDsToDelete")
        try context.expectEqual(proxy.isAtomic, false, "isAtomic")
        try context.expectEqual(proxy.clientChangeTokenData, Data([7, 7]), "clientChangeTokenData")

        context.step("replay")
        let replay = try second.run(proxy, CallbackLog(), context)
        try context.expectEqual(
            Array(replay.prefix(original.count)), original, "the replay starts with what was delivered")
        try context.expectEqual(
            replay.filter { $0.hasPrefix("save") || $0.hasPrefix("delete") }.count, 4, "one result per record")
        try context.expect(
            replay.last?.hasPrefix("completion") == true && replay.contains("final ok"),
            "the replay ends with the completion",
            actual: "\(replay)")
        try context.expect(
            replay.contains { $0.hasPrefix("save r1 error serverRecordChanged") },
            "the conflict is replayed with its error",
            actual: "\(replay)")
        let after = try LongLived.zoneState(second.database, zoneID, in: context)
        try context.expectEqual(after.token, before.token, "the zone's change token (nothing written by the replay)")
        try context.expectEqual(after.tags, before.tags, "the change tags")
        for (name, tag) in after.tags where name == "a" || name == "b" {
            try context.expect(
                replay.contains { $0.hasPrefix("save \(name) ok \(name)@\(tag)") },
                "the replayed save of \(name) carries the stored change tag \(tag)", actual: "\(replay)")
        }
        try context.expect(after.tags["r0"] == nil, "r0 stays deleted")
        try context.expect(!(try second.listed(context)).contains(op.operationID), "not listed after the replay")
        try context.expect(try second.proxy(op.operationID, context) == nil, "no proxy after the replay")
        try second.stop(context)
    }

    static let resumesModifyNotYetApplied = ConformanceCase(
        "longLived.resumesModifyNotYetApplied", invariants: [56],
        "A long-lived modify killed after it was persisted but before its work is resumed by its proxy: the records are saved exactly once and the proxy delivers their results."
    ) { context in
        let first = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(first.database, "Resume", records: 0, in: context)
        let op = CKModifyRecordsOperation(recordsToSave: (0..<3).map { makeRecord("n\($0)", zone: zoneID, ["n": $0]) })
        let log = CallbackLog()
        op.longLivedOperationWasPersistedBlock = { log.holdHere("persisted") }
        context.step("start and kill in the persisted block")
        try first.startHeld(op, log, context)
        try first.kill(holding: log, context)

        let second = try LongLivedProcess.start(context)
        try context.expectEqual(
            try LongLived.zoneState(second.database, zoneID, in: context).tags.count, 0, "records saved before resuming"
        )
        guard let proxy = try second.proxy(op.operationID, context) else {
            throw context.failure(expected: "a proxy of the persisted operation", actual: "nil")
        }
        context.step("resume")
        let replay = try second.run(proxy, CallbackLog(), context)
        let state = try LongLived.zoneState(second.database, zoneID, in: context)
        try context.expectEqual(state.tags.keys.sorted(), ["n0", "n1", "n2"], "records saved by the resumed operation")
        for (name, tag) in state.tags {
            try context.expect(
                replay.contains { $0.hasPrefix("save \(name) ok \(name)@\(tag)") },
                "the result of \(name) carries its stored tag", actual: "\(replay)")
        }
        try context.expect(replay.contains("final ok"), "the operation succeeds", actual: "\(replay)")

        context.step("nothing left to resume")
        try context.expect(!(try second.listed(context)).contains(op.operationID), "not listed once delivered")
        let third = try LongLivedProcess.start(context)
        try context.expectEqual(
            try LongLived.zoneState(third.database, zoneID, in: context).token, state.token, "nothing written again")
        try third.stop(context)
        try second.stop(context)
    }

    static let resumesZoneChangesFromLastToken = ConformanceCase(
        "longLived.resumesZoneChangesFromLastToken", invariants: [56, 9],
        "A long-lived zone-changes fetch killed after two batches replays those batches, then continues live from the last journaled token: every record exactly once, later writes included."
    ) { context in
        let first = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(first.database, "Changes", records: 25, in: context)
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(resultsLimit: 10)
        let op = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        let log = CallbackLog { index, entry in entry.hasPrefix("tokens") && index > 15 }
        context.step("start and kill after the second batch")
        try first.startHeld(op, log, context)
        try first.kill(holding: log, context)
        let original = log.all
        try context.expectEqual(
            original.filter { $0.hasPrefix("changed") }.count, 20, "records delivered before the kill")

        context.step("restart and write more")
        let second = try LongLivedProcess.start(context)
        _ = try Ops.saveAll(
            second.database, (0..<3).map { makeRecord("late\($0)", zone: zoneID, ["n": $0]) }, in: context)
        guard let proxy = try second.proxy(op.operationID, context) else {
            throw context.failure(expected: "a proxy", actual: "nil")
        }
        let replay = try second.run(proxy, CallbackLog(), context)
        try context.expectEqual(Array(replay.prefix(original.count)), original, "the replayed prefix")
        let names = replay.filter { $0.hasPrefix("changed") }.map { $0.split(separator: " ")[1] }
        try context.expectEqual(names.count, 28, "records delivered in all (25, then 3 written after the kill)")
        try context.expectEqual(Set(names).count, 28, "distinct records delivered (none twice)")
        try context.expect(
            replay.contains { $0.hasPrefix("zone Changes") && $0.hasSuffix("more=false") }
                && replay.contains("final ok"),
            "the zone and the operation complete", actual: "\(replay.suffix(4))")
        try context.expect(!(try second.listed(context)).contains(op.operationID), "not listed once delivered")
        try second.stop(context)
    }

    static let twoRunsApplyOnce = ConformanceCase(
        "longLived.twoRunsApplyOnce", invariants: [56],
        "A proxy added while its original still runs (another handle, same store) and the original itself deliver the same callbacks, and the work is applied once."
    ) { context in
        let first = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(first.database, "Twice", records: 12, in: context)

        context.step("modify: the proxy applies it while the original waits in its persisted block")
        let modify = CKModifyRecordsOperation(recordsToSave: [makeRecord("x", zone: zoneID, ["n": 1])])
        let originalLog = CallbackLog(freezes: false)
        modify.longLivedOperationWasPersistedBlock = { originalLog.holdHere("persisted") }
        try first.startHeld(modify, originalLog, context)
        let second = try LongLivedProcess.start(context)
        guard let proxy = try second.proxy(modify.operationID, context) else {
            throw context.failure(expected: "a proxy of the running operation", actual: "nil")
        }
        let proxyLog = try second.run(proxy, CallbackLog(), context)
        originalLog.release()
        try context.expect(originalLog.waitUntilFinished(), "the original finishes")
        try context.expectEqual(Array(originalLog.all.dropFirst()), proxyLog, "the original's callbacks")
        let tag = try LongLived.zoneState(second.database, zoneID, in: context).tags["x"] ?? "missing"
        try context.expect(
            proxyLog.contains { $0.hasPrefix("save x ok x@\(tag)") }, "both report the one stored version (\(tag))",
            actual: "\(proxyLog)")

        context.step("zone changes: the proxy goes ahead while the original waits after one batch")
        let fetch = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID],
            configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: nil, resultsLimit: 4)])
        let fetchLog = CallbackLog(freezes: false) { _, entry in entry.hasPrefix("tokens") }
        try first.startHeld(fetch, fetchLog, context)
        guard let fetchProxy = try second.proxy(fetch.operationID, context) else {
            throw context.failure(expected: "a proxy of the running fetch", actual: "nil")
        }
        let fetchProxyLog = try second.run(fetchProxy, CallbackLog(), context)
        fetchLog.release()
        try context.expect(fetchLog.waitUntilFinished(), "the original fetch finishes")
        try context.expectEqual(fetchLog.all, fetchProxyLog, "the original's callbacks")
        try context.expectEqual(
            fetchProxyLog.filter { $0.hasPrefix("changed") }.count, 13, "records delivered (12 and x), each once")
        try second.stop(context)
        try first.stop(context)
    }

    // MARK: 57

    static let leavesListWhenDeliveredOrCancelled = ConformanceCase(
        "longLived.leavesListWhenDeliveredOrCancelled", invariants: [57],
        "A long-lived operation leaves the list, and its proxy can no longer be fetched, once its completion was delivered (live or by a replay) or it was cancelled (running, or as an unadded proxy)."
    ) { context in
        let process = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(process.database, "Leaves", records: 3, in: context)

        context.step("completed and delivered live")
        let live = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        live.configuration.isLongLived = true
        try process.run(live, CallbackLog(), context)
        try context.expect(!(try process.listed(context)).contains(live.operationID), "not listed")
        try context.expect(try process.proxy(live.operationID, context) == nil, "no proxy")

        context.step("cancelled while running")
        let cancelled = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID],
            configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: nil, resultsLimit: 1)])
        cancelled.configuration.isLongLived = true
        let cancelledLog = CallbackLog()
        cancelledLog.attach(to: cancelled)
        let userBlock = cancelled.recordWasChangedBlock
        cancelled.recordWasChangedBlock = { [unowned cancelled] id, result in
            userBlock?(id, result)
            cancelled.cancel()
        }
        process.database.add(cancelled)
        try context.expect(cancelledLog.waitUntilFinished(), "the cancelled operation finishes")
        try context.expect(
            cancelledLog.all.contains("final error operationCancelled"), "it reports operationCancelled",
            actual: "\(cancelledLog.all)")
        try context.expect(
            !(try process.listed(context)).contains(cancelled.operationID), "a cancelled one is not listed")
        try context.expect(try process.proxy(cancelled.operationID, context) == nil, "no proxy of a cancelled one")

        context.step("completed, killed before delivery, then replayed")
        let replayed = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let log = CallbackLog.holding(atFirst: "completion")
        try process.startHeld(replayed, log, context)
        try process.kill(holding: log, context)
        let second = try LongLivedProcess.start(context)
        try context.expect(try second.listed(context).contains(replayed.operationID), "listed before the replay")
        guard let proxy = try second.proxy(replayed.operationID, context) else {
            throw context.failure(expected: "a proxy", actual: "nil")
        }
        try second.run(proxy, CallbackLog(), context)
        try context.expect(!(try second.listed(context)).contains(replayed.operationID), "not listed after the replay")
        try context.expect(try second.proxy(replayed.operationID, context) == nil, "no proxy after the replay")

        context.step("a proxy cancelled without being added")
        let abandoned = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let abandonedLog = CallbackLog.holding(atFirst: "completion")
        try second.startHeld(abandoned, abandonedLog, context)
        try second.kill(holding: abandonedLog, context)
        let third = try LongLivedProcess.start(context)
        guard let abandonedProxy = try third.proxy(abandoned.operationID, context) else {
            throw context.failure(expected: "a proxy", actual: "nil")
        }
        abandonedProxy.cancel()
        try context.expect(!(try third.listed(context)).contains(abandoned.operationID), "not listed once cancelled")
        try context.expect(try third.proxy(abandoned.operationID, context) == nil, "no proxy once cancelled")
        try third.stop(context)
    }

    // MARK: 58

    static let keptForRetentionThenPurged = ConformanceCase(
        "longLived.keptForRetentionThenPurged", invariants: [58],
        "A completed long-lived operation nobody replayed stays listed and fetchable for 24 hours after it completed (or the configured retention), then is purged with its journal; a running one is never purged."
    ) { context in
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let hour: TimeInterval = 3600
        var process = try LongLivedProcess.start(context, clock: start)
        let zoneID = try LongLived.seedZone(process.database, "Kept", records: 1, in: context)

        context.step("one completed, undelivered; one running")
        let completed = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let completedLog = CallbackLog.holding(atFirst: "completion")
        try process.startHeld(completed, completedLog, context)
        try process.kill(holding: completedLog, context)
        process = try LongLivedProcess.start(context, clock: start)
        let running = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let runningLog = CallbackLog()
        running.longLivedOperationWasPersistedBlock = { runningLog.holdHere("persisted") }
        try process.startHeld(running, runningLog, context)
        try process.kill(holding: runningLog, context)

        context.step("just under 24 hours later")
        process = try LongLivedProcess.start(context, clock: start + 24 * hour - 60)
        try context.expectEqual(
            Set(try process.listed(context)), [completed.operationID, running.operationID], "listed operations")
        try context.expect(try process.proxy(completed.operationID, context) != nil, "the completed one is fetchable")
        context.step("their journal status")
        let completedStatus = try process.status(completed.operationID, context)
        try context.expectEqual(completedStatus?.state, .completed, "state of the completed one")
        try context.expectEqual(completedStatus?.finishedAt, start, "when the completed one finished")
        try context.expectEqual(completedStatus?.journaledCallbacks, 2, "its callbacks: the zone, then the end")
        let runningStatus = try process.status(running.operationID, context)
        try context.expectEqual(runningStatus?.state, .running, "state of the running one")
        try context.expectEqual(runningStatus?.finishedAt, nil, "when the running one finished")
        try context.expectEqual(runningStatus?.journaledCallbacks, 0, "its callbacks")
        try context.expectEqual(runningStatus?.persistedAt, start, "when it was persisted")
        try context.expectEqual(runningStatus?.operationType, "CKFetchRecordZonesOperation", "its type")
        try context.expectEqual(runningStatus?.databaseScope, .private, "its database")
        try process.stop(context)

        context.step("just over 24 hours later")
        process = try LongLivedProcess.start(context, clock: start + 24 * hour + 60)
        try context.expectEqual(try process.listed(context), [running.operationID], "listed operations")
        try context.expect(try process.proxy(completed.operationID, context) == nil, "the completed one is purged")
        try context.expect(try process.status(completed.operationID, context) == nil, "and has no status")
        try process.stop(context)
        try context.expect(
            !(try LongLived.journalMentions(completed.operationID, context)), "its journal entries are gone",
            actual: "keys remain")
        try context.expect(
            try LongLived.journalMentions(running.operationID, context), "the running one's entries remain")

        context.step("a configured retention")
        let later = start + 48 * hour
        process = try LongLivedProcess.start(context, clock: later)
        let short = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let shortLog = CallbackLog.holding(atFirst: "completion")
        try process.startHeld(short, shortLog, context)
        try process.kill(holding: shortLog, context)
        process = try LongLivedProcess.start(context, clock: later + 30, retention: 60)
        try context.expect(try process.listed(context).contains(short.operationID), "kept within a 60 s retention")
        try process.stop(context)
        process = try LongLivedProcess.start(context, clock: later + 61, retention: 60)
        try context.expect(!(try process.listed(context)).contains(short.operationID), "purged after 60 s")
        try process.stop(context)
    }

    // MARK: 59

    static let flagReadOnceAtStart = ConformanceCase(
        "longLived.flagReadOnceAtStart", invariants: [59],
        "isLongLived is read once, when the operation starts: setting it later, or clearing it on a proxy, changes nothing."
    ) { context in
        let process = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(process.database, "Flag", records: 3, in: context)

        context.step("set after start on an ordinary operation")
        let ordinary = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let ordinaryLog = CallbackLog()
        ordinaryLog.attach(to: ordinary)
        ordinary.perRecordZoneResultBlock = { [unowned ordinary] _, _ in ordinary.configuration.isLongLived = true }
        process.database.add(ordinary)
        try context.expect(ordinaryLog.waitUntilFinished(), "the operation finishes")
        try context.expect(try LongLived.journalKeys(context).isEmpty, "nothing journaled", actual: "journal keys")

        context.step("cleared after start on a long-lived operation")
        let cleared = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID],
            configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: nil, resultsLimit: 1)])
        cleared.longLivedOperationWasPersistedBlock = { [unowned cleared] in cleared.configuration.isLongLived = false }
        let clearedLog = CallbackLog.holding(atFirst: "changed")
        try process.startHeld(cleared, clearedLog, context)
        try context.expect(try process.listed(context).contains(cleared.operationID), "still listed while it runs")
        try process.kill(holding: clearedLog, context)
        let second = try LongLivedProcess.start(context)
        guard let proxy = try second.proxy(cleared.operationID, context) else {
            throw context.failure(expected: "a proxy: the operation was persisted", actual: "nil")
        }

        context.step("cleared on the proxy")
        proxy.configuration.isLongLived = false
        let replay = try second.run(proxy, CallbackLog(), context)
        try context.expectEqual(Array(replay.prefix(clearedLog.all.count)), clearedLog.all, "the replayed prefix")
        try context.expectEqual(replay.filter { $0.hasPrefix("changed") }.count, 3, "records delivered")
        try context.expect(!(try second.listed(context)).contains(cleared.operationID), "delivered: not listed")
        try second.stop(context)
    }

    // MARK: 60

    static let ordinaryOperationsNeverJournal = ConformanceCase(
        "longLived.ordinaryOperationsNeverJournal", invariants: [60],
        "Operations of every type that are not long-lived write nothing to the journal and are never listed."
    ) { context in
        let process = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(process.database, "Plain", records: 2, in: context)
        for op in LongLivedCases.everyType(zoneID: zoneID) {
            context.step("\(type(of: op))")
            try process.run(op, CallbackLog(), context)
            try context.expect(!(try process.listed(context)).contains(op.operationID), "not listed")
        }
        try context.expect(try LongLived.journalKeys(context).isEmpty, "nothing journaled", actual: "journal keys")
        try process.stop(context)
    }

    // MARK: Submission

    static let proxyMustBeAddedToADatabase = ConformanceCase(
        "longLived.proxyMustBeAddedToADatabase",
        "A proxy added to the container instead of a database fails with invalidArguments (\"CKDatabaseOperations must be submitted to a CKDatabase\") and stays listed; added to a database it replays."
    ) { context in
        let first = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(first.database, "Submit", records: 1, in: context)
        let op = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID])
        let log = CallbackLog.holding(atFirst: "completion")
        try first.startHeld(op, log, context)
        try first.kill(holding: log, context)

        let second = try LongLivedProcess.start(context)
        guard let wrong = try second.proxy(op.operationID, context) as? CKFetchRecordZonesOperation else {
            throw context.failure(expected: "a CKFetchRecordZonesOperation proxy", actual: "none or another class")
        }
        let errors = Collector<(any Error)?>()
        let done = DispatchSemaphore(value: 0)
        wrong.fetchRecordZonesResultBlock = { result in
            if case .failure(let error) = result { errors.append(error) } else { errors.append(nil) }
        }
        wrong.completionBlock = { done.signal() }
        second.container.add(wrong)
        done.wait()
        let error = errors.values.first ?? nil
        try context.expectEqual(ckCode(error), .invalidArguments, "the proxy's error")
        try context.expect(
            (error as? CKError)?.localizedDescription.contains("CKDatabaseOperations must be submitted to a CKDatabase")
                == true, "CloudKit's message", actual: "\(String(describing: error))")
        try context.expect(try second.listed(context).contains(op.operationID), "still listed")
        guard let right = try second.proxy(op.operationID, context) else {
            throw context.failure(expected: "a proxy", actual: "nil")
        }
        try context.expectEqual(try second.run(right, CallbackLog(), context), log.all, "the replay")
        try second.stop(context)
    }
}
