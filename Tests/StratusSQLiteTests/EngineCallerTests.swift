import Foundation
import StratusBackend
import StratusConformance
import StratusTestSupport
import Testing

@testable import Stratus

/// The engine's part of decision 0012.3, on every backend: the caller a `DatabaseContext`
/// carries (creator and modifier names, Apple's default public-database roles), per-item save
/// and delete modes (CloudKit Web Services' `operationType`), and atomic zones with modes.
@Suite struct EngineCallerTests {
    typealias Backend = NamespaceTests.Backend

    static let publicNamespace = Namespace(container: "iCloud.com.example.callers", environment: .development)
    static let alice = Caller(userRecordName: "_alice", role: .user)
    static let bob = Caller(userRecordName: "_bob", role: .user)
    static let anonymous = Caller(userRecordName: "_anonymous", role: .anonymous)
    static let server = Caller(userRecordName: "_server", role: .admin)

    /// Runs `body` with an engine over fresh storage, destroyed afterwards.
    func withEngine(_ backend: Backend, _ body: (Engine) async throws -> Void) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        try await body(try Engine(backend: try storage.open()))
    }

    /// The public database as `caller` sees it.
    func publicDatabase(_ engine: Engine, _ caller: Caller?) throws -> DatabaseContext {
        try engine.database(namespace: Self.publicNamespace, scope: .public, caller: caller)
    }

    /// `caller`'s private database.
    func privateDatabase(_ engine: Engine, _ caller: Caller) throws -> DatabaseContext {
        var namespace = Self.publicNamespace
        namespace.owner = caller.userRecordName
        return try engine.database(namespace: namespace, scope: .private, caller: caller)
    }

    /// A new record object with `fields` set (so all of them are changed keys); a `nil` value
    /// removes the field.
    func note(_ name: String, zone: CKRecordZone.ID = .default, _ fields: [String: String?]) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) { record[key] = value }
        return record
    }

    func modify(
        _ database: DatabaseContext, saves: [(record: CKRecord, mode: SaveMode)],
        deletes: [(id: CKRecord.ID, mode: DeleteMode)] = [], atomic: Bool = false
    ) throws -> ModifyOutcome {
        let outcome = try database.modifyRecords(
            ModifyRequest(saves: saves, deletes: deletes, atomic: atomic, clientChangeTokenData: nil))
        #expect(outcome.saveResults.map(\.0) == saves.map(\.record.recordID))
        #expect(outcome.deleteResults.map(\.0) == deletes.map(\.id))
        return outcome
    }

    /// Saves one record with `mode`; its result.
    func save(_ database: DatabaseContext, _ record: CKRecord, _ mode: SaveMode) throws -> Result<CKRecord, CKError> {
        try modify(database, saves: [(record, mode)]).saveResults[0].1
    }

    /// Deletes one record with `mode`; its result.
    func delete(_ database: DatabaseContext, _ name: String, _ mode: DeleteMode, zone: CKRecordZone.ID = .default)
        throws -> Result<Void, CKError>
    {
        try modify(database, saves: [], deletes: [(CKRecord.ID(recordName: name, zoneID: zone), mode)])
            .deleteResults[0].1
    }

    /// The stored record, or `nil` when there is none.
    func fetch(_ database: DatabaseContext, _ name: String, zone: CKRecordZone.ID = .default) throws -> CKRecord? {
        switch try database.fetchRecords([CKRecord.ID(recordName: name, zoneID: zone)], desiredKeys: nil)[0].1 {
        case .success(let record): return record
        case .failure(let error) where error.code == .unknownItem: return nil
        case .failure(let error): throw error
        }
    }

    /// The stored record's string fields.
    func fields(_ database: DatabaseContext, _ name: String, zone: CKRecordZone.ID = .default) throws -> [String:
        String]
    {
        guard let record = try fetch(database, name, zone: zone) else { return [:] }
        var result: [String: String] = [:]
        for key in record.allKeys() { result[key] = record[key] as? String }
        return result
    }

    func failure<T>(_ result: Result<T, CKError>) -> CKError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    func success<T>(_ result: Result<T, CKError>) throws -> T {
        try result.get()
    }

    // MARK: Save modes

    @Test(arguments: Backend.allCases)
    func createSavesANewRecordAndRefusesAnExistingOne(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            let created = try success(try save(database, note("a", ["title": "first"]), .create))
            #expect(created.recordChangeTag != nil)
            #expect(try fields(database, "a") == ["title": "first"])

            let again = failure(try save(database, note("a", ["title": "second"]), .create))
            #expect(again?.code == .serverRecordChanged)
            #expect(again?.message.contains("already exists") == true)
            #expect(again?.serverRecord?["title"] as? String == "first")
            #expect(try fields(database, "a") == ["title": "first"])
        }
    }

    @Test(arguments: Backend.allCases)
    func updateNeedsTheRecordAndItsChangeTagAndKeepsFieldsNotGiven(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            let absent = failure(try save(database, note("a", ["title": "x"]), .update(changeTag: "1")))
            #expect(absent?.code == .unknownItem)
            #expect(absent?.message.contains("'a'") == true)
            #expect(try fetch(database, "a") == nil)

            let first = try success(try save(database, note("a", ["title": "one", "body": "text"]), .create))
            let tag = try #require(first.recordChangeTag)
            let updated = try success(try save(database, note("a", ["title": "two"]), .update(changeTag: tag)))
            #expect(updated.recordChangeTag != tag)
            #expect(try fields(database, "a") == ["title": "two", "body": "text"])

            // The first tag is stale now.
            let stale = failure(try save(database, note("a", ["title": "three"]), .update(changeTag: tag)))
            #expect(stale?.code == .serverRecordChanged)
            #expect(stale?.serverRecord?.recordChangeTag == updated.recordChangeTag)
            #expect(stale?.serverRecord?["title"] as? String == "two")
            #expect(try fields(database, "a") == ["title": "two", "body": "text"])

            // A field given as nil is removed.
            let newTag = try #require(updated.recordChangeTag)
            _ = try success(try save(database, note("a", ["body": nil]), .update(changeTag: newTag)))
            #expect(try fields(database, "a") == ["title": "two"])
        }
    }

    @Test(arguments: Backend.allCases)
    func forceUpdateIgnoresTheTagKeepsOtherFieldsAndCreatesWhenAbsent(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            _ = try success(try save(database, note("a", ["title": "one"]), .forceUpdate))
            #expect(try fields(database, "a") == ["title": "one"])
            _ = try success(try save(database, note("a", ["body": "text"]), .forceUpdate))
            #expect(try fields(database, "a") == ["title": "one", "body": "text"])
            // A record object carrying a wrong tag of its own is not checked either.
            let record = note("a", ["title": "two"])
            record.state.withLock { $0.system.changeTag = "stale" }
            _ = try success(try save(database, record, .forceUpdate))
            #expect(try fields(database, "a") == ["title": "two", "body": "text"])
        }
    }

    @Test(arguments: Backend.allCases)
    func replaceChecksTheTagAndMakesTheFieldsExactlyThoseGiven(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            let absent = failure(try save(database, note("a", ["title": "x"]), .replace(changeTag: "1")))
            #expect(absent?.code == .unknownItem)
            #expect(try fetch(database, "a") == nil)

            let first = try success(try save(database, note("a", ["title": "one", "body": "text"]), .create))
            let tag = try #require(first.recordChangeTag)
            let replaced = try success(try save(database, note("a", ["title": "two"]), .replace(changeTag: tag)))
            #expect(try fields(database, "a") == ["title": "two"])

            let stale = failure(try save(database, note("a", ["body": "again"]), .replace(changeTag: tag)))
            #expect(stale?.code == .serverRecordChanged)
            #expect(stale?.serverRecord?.recordChangeTag == replaced.recordChangeTag)
            #expect(try fields(database, "a") == ["title": "two"])
        }
    }

    @Test(arguments: Backend.allCases)
    func forceReplaceIgnoresTheTagAndCreatesWhenAbsent(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            _ = try success(try save(database, note("a", ["title": "one", "body": "text"]), .forceReplace))
            #expect(try fields(database, "a") == ["title": "one", "body": "text"])
            _ = try success(try save(database, note("a", ["author": "me"]), .forceReplace))
            #expect(try fields(database, "a") == ["author": "me"])
        }
    }

    @Test(arguments: Backend.allCases)
    func replaceDropsTheParentWhenNoneIsGiven(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            let child = note("child", ["title": "c"])
            child.setParent(CKRecord.ID(recordName: "parent"))
            _ = try modify(database, saves: [(note("parent", ["title": "p"]), .create), (child, .create)])
            #expect(try fetch(database, "child")?.parent?.recordID.recordName == "parent")
            _ = try success(try save(database, note("child", ["title": "c2"]), .forceUpdate))
            #expect(try fetch(database, "child")?.parent?.recordID.recordName == "parent")
            _ = try success(try save(database, note("child", ["title": "c3"]), .forceReplace))
            #expect(try fetch(database, "child")?.parent == nil)
        }
    }

    // MARK: Delete modes

    @Test(arguments: Backend.allCases)
    func deleteModesCheckExistenceAndTheTag(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            #expect(failure(try delete(database, "a", .force))?.code == .unknownItem)
            #expect(failure(try delete(database, "a", .ifChangeTag("1")))?.code == .unknownItem)

            let first = try success(try save(database, note("a", ["title": "one"]), .create))
            let oldTag = try #require(first.recordChangeTag)
            let second = try success(try save(database, note("a", ["title": "two"]), .update(changeTag: oldTag)))

            let stale = failure(try delete(database, "a", .ifChangeTag(oldTag)))
            #expect(stale?.code == .serverRecordChanged)
            #expect(stale?.message.contains("'a'") == true)
            #expect(stale?.serverRecord?.recordChangeTag == second.recordChangeTag)
            #expect(stale?.serverRecord?["title"] as? String == "two")
            #expect(try fetch(database, "a") != nil)

            _ = try success(try delete(database, "a", .ifChangeTag(try #require(second.recordChangeTag))))
            #expect(try fetch(database, "a") == nil)

            _ = try success(try save(database, note("b", ["title": "b"]), .create))
            _ = try success(try delete(database, "b", .force))
            #expect(try fetch(database, "b") == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func eachItemGetsItsOwnResultInRequestOrder(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            _ = try success(try save(database, note("old", ["title": "old"]), .create))
            _ = try success(try save(database, note("x", ["title": "x"]), .create))
            let outcome = try modify(
                database,
                saves: [
                    (note("z", ["title": "z"]), .create), (note("x", ["title": "again"]), .create),
                    (note("a", ["title": "a"]), .forceReplace),
                ],
                deletes: [(CKRecord.ID(recordName: "missing"), .force), (CKRecord.ID(recordName: "old"), .force)])
            #expect(outcome.saveResults.map { failure($0.1)?.code } == [nil, .serverRecordChanged, nil])
            #expect(outcome.deleteResults.map { failure($0.1)?.code } == [.unknownItem, nil])
            #expect(try fetch(database, "z") != nil)
            #expect(try fetch(database, "a") != nil)
            #expect(try fetch(database, "old") == nil)
            #expect(try fields(database, "x") == ["title": "x"])
        }
    }

    // MARK: Callers

    @Test(arguments: Backend.allCases)
    func creatorAndModifierAreTheCallers(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let byAlice = try publicDatabase(engine, Self.alice)
            let created = try success(try save(byAlice, note("a", ["title": "one"]), .create))
            #expect(created.creatorUserRecordID?.recordName == "_alice")
            #expect(created.lastModifiedUserRecordID?.recordName == "_alice")

            let byServer = try publicDatabase(engine, Self.server)
            _ = try success(try save(byServer, note("a", ["title": "two"]), .forceUpdate))
            let fetched = try #require(try fetch(byAlice, "a"))
            #expect(fetched.creatorUserRecordID?.recordName == "_alice")
            #expect(fetched.lastModifiedUserRecordID?.recordName == "_server")

            // Without a caller, a namespace runs as the embedded local user, unchecked.
            let embedded = try publicDatabase(engine, nil)
            #expect(embedded.caller == Caller(userRecordName: "_defaultUser", role: .admin))
            let byDefault = try success(try save(embedded, note("b", ["title": "b"]), .create))
            #expect(byDefault.creatorUserRecordID?.recordName == "_defaultUser")
            #expect(try engine.database(container: "iCloud.embedded", scope: .public).caller == embedded.caller)
        }
    }

    // MARK: Public-database roles

    @Test(arguments: Backend.allCases)
    func anAnonymousCallerCannotWriteThePublicDatabase(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            _ = try success(try save(try publicDatabase(engine, Self.alice), note("a", ["title": "a"]), .create))
            let database = try publicDatabase(engine, Self.anonymous)
            let outcome = try modify(
                database,
                saves: [(note("new", ["title": "n"]), .create), (note("a", ["title": "x"]), .forceUpdate)])
            let deletes = try modify(
                database, saves: [],
                deletes: [(CKRecord.ID(recordName: "a"), .force), (CKRecord.ID(recordName: "b"), .force)])
            for result in outcome.saveResults.map({ failure($0.1) }) + deletes.deleteResults.map({ failure($0.1) }) {
                #expect(result?.code == .permissionFailure)
                #expect(result?.message.contains("signed-in user") == true)
            }
            #expect(try fetch(database, "new") == nil)
            #expect(try fields(database, "a") == ["title": "a"])

            // Reads are allowed.
            #expect(try fetch(database, "a") != nil)

            let zones = try database.modifyZones(
                saving: [CKRecordZone(zoneName: "Z")], deleting: [CKRecordZone.ID(zoneName: "Y")])
            #expect(failure(zones.saved[0].1)?.code == .permissionFailure)
            #expect(failure(zones.deleted[0].1)?.code == .permissionFailure)

            let subscription = CKQuerySubscription(
                recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "s")
            let subscriptions = try database.modifySubscriptions(saving: [subscription], deleting: ["t"])
            #expect(failure(subscriptions.saved[0].1)?.code == .permissionFailure)
            #expect(failure(subscriptions.deleted[0].1)?.code == .permissionFailure)
            #expect(try database.fetchSubscriptions(nil).isEmpty)

            // A signed-in user may subscribe, and gets the public database's own answer to zones.
            let byAlice = try publicDatabase(engine, Self.alice)
            let userZones = try byAlice.modifyZones(saving: [CKRecordZone(zoneName: "Z")], deleting: [])
            #expect(failure(userZones.saved[0].1)?.code == .badDatabase)
            #expect(failure(try byAlice.modifySubscriptions(saving: [subscription], deleting: []).saved[0].1) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aUserChangesAndDeletesOnlyThePublicRecordsItCreated(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let byAlice = try publicDatabase(engine, Self.alice)
            let byBob = try publicDatabase(engine, Self.bob)
            let record = try success(try save(byAlice, note("a", ["title": "alice's"]), .create))
            let tag = try #require(record.recordChangeTag)

            let modes: [SaveMode] = [.update(changeTag: tag), .forceUpdate, .replace(changeTag: tag), .forceReplace]
            for mode in modes {
                let error = failure(try save(byBob, note("a", ["title": "bob's"]), mode))
                #expect(error?.code == .permissionFailure, "\(mode)")
                #expect(error?.message.contains("'a'") == true)
                #expect(error?.message.contains("another user") == true)
            }
            // The request's policy (no mode) is checked too.
            let legacy = try byBob.modifyRecords(
                ModifyRequest(
                    records: [note("a", ["title": "bob's"])], deletes: [], policy: .changedKeys, atomic: false,
                    clientChangeTokenData: nil))
            #expect(failure(legacy.saveResults[0].1)?.code == .permissionFailure)
            for mode in [DeleteMode.force, .ifChangeTag(tag)] {
                #expect(failure(try delete(byBob, "a", mode))?.code == .permissionFailure, "\(mode)")
            }
            // Creating a record of that name is a conflict, not a change.
            #expect(failure(try save(byBob, note("a", ["title": "bob's"]), .create))?.code == .serverRecordChanged)
            #expect(try fields(byAlice, "a") == ["title": "alice's"])

            // Per item: Bob's own record in the same request is saved.
            let mixed = try modify(
                byBob, saves: [(note("b", ["title": "bob's"]), .create), (note("a", ["title": "x"]), .forceUpdate)])
            #expect(failure(mixed.saveResults[0].1) == nil)
            #expect(failure(mixed.saveResults[1].1)?.code == .permissionFailure)
            let bobsTag = try #require(try fetch(byBob, "b")?.recordChangeTag)
            _ = try success(try save(byBob, note("b", ["title": "bob's too"]), .update(changeTag: bobsTag)))
            _ = try success(try delete(byBob, "b", .force))
            #expect(try fetch(byBob, "b") == nil)

            // Alice changes her own record; the server changes and deletes anyone's.
            _ = try success(try save(byAlice, note("a", ["title": "alice's 2"]), .update(changeTag: tag)))
            let byServer = try publicDatabase(engine, Self.server)
            _ = try success(try save(byServer, note("a", ["title": "server's"]), .forceReplace))
            #expect(try fields(byAlice, "a") == ["title": "server's"])
            _ = try success(try delete(byServer, "a", .force))
            #expect(try fetch(byAlice, "a") == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func privateDatabasesCheckNoRoles(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            // The server decides who may reach a private database; the engine checks no role.
            let database = try privateDatabase(engine, Self.anonymous)
            let created = try success(try save(database, note("a", ["title": "a"]), .create))
            #expect(created.creatorUserRecordID?.recordName == "_anonymous")
            _ = try success(try delete(database, "a", .force))
        }
    }

    // MARK: Atomic zones

    @Test(arguments: Backend.allCases)
    func aFailedModeFailsTheWholeAtomicZone(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            let zone = CKRecordZone(zoneName: "Atomic")
            #expect(failure(try database.modifyZones(saving: [zone], deleting: []).saved[0].1) == nil)
            let zoneID = zone.zoneID
            let first = try success(try save(database, note("a", zone: zoneID, ["title": "one"]), .create))
            let tag = try #require(first.recordChangeTag)
            _ = try success(try save(database, note("a", zone: zoneID, ["title": "two"]), .update(changeTag: tag)))
            _ = try success(try save(database, note("b", zone: zoneID, ["title": "b"]), .create))

            // A stale tag on one save: every other item fails with batchRequestFailed.
            let outcome = try modify(
                database,
                saves: [
                    (note("new", zone: zoneID, ["title": "n"]), .create),
                    (note("a", zone: zoneID, ["title": "three"]), .update(changeTag: tag)),
                ],
                deletes: [(CKRecord.ID(recordName: "b", zoneID: zoneID), .force)], atomic: true)
            #expect(outcome.saveResults.map { failure($0.1)?.code } == [.batchRequestFailed, .serverRecordChanged])
            #expect(outcome.deleteResults.map { failure($0.1)?.code } == [.batchRequestFailed])
            #expect(try fetch(database, "new", zone: zoneID) == nil)
            #expect(try fields(database, "a", zone: zoneID) == ["title": "two"])
            #expect(try fetch(database, "b", zone: zoneID) != nil)

            // A stale conditional delete does the same.
            let byDelete = try modify(
                database, saves: [(note("new", zone: zoneID, ["title": "n"]), .forceReplace)],
                deletes: [(CKRecord.ID(recordName: "a", zoneID: zoneID), .ifChangeTag(tag))], atomic: true)
            #expect(failure(byDelete.saveResults[0].1)?.code == .batchRequestFailed)
            #expect(failure(byDelete.deleteResults[0].1)?.code == .serverRecordChanged)
            #expect(try fetch(database, "new", zone: zoneID) == nil)

            // Not atomic: the good items are applied.
            let partial = try modify(
                database,
                saves: [
                    (note("new", zone: zoneID, ["title": "n"]), .create),
                    (note("a", zone: zoneID, ["title": "three"]), .update(changeTag: tag)),
                ])
            #expect(partial.saveResults.map { failure($0.1)?.code } == [nil, .serverRecordChanged])
            #expect(try fields(database, "new", zone: zoneID) == ["title": "n"])
        }
    }

    // MARK: Constant-time tag comparison

    @Test func tagsCompareEqualOnlyWhenEveryByteAndTheLengthAgree() {
        let tag: [UInt8] = Array(0..<16)
        #expect(SipHash.tagsEqual(tag, tag))
        #expect(SipHash.tagsEqual([], []))
        var last = tag
        last[15] ^= 0x80
        #expect(!SipHash.tagsEqual(tag, last))
        var first = tag
        first[0] ^= 1
        #expect(!SipHash.tagsEqual(tag, first))
        #expect(!SipHash.tagsEqual(tag, Array(tag.dropLast())))
        #expect(!SipHash.tagsEqual(Array(tag.dropLast()), tag))
        #expect(!SipHash.tagsEqual(tag, tag + [0]))
    }

    @Test(arguments: [Backend.memory])
    func anAlteredTokenOrCursorIsStillRefused(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try privateDatabase(engine, Self.alice)
            let zone = CKRecordZone(zoneName: "Notes")
            _ = try database.modifyZones(saving: [zone], deleting: [])
            _ = try success(try save(database, note("a", zone: zone.zoneID, ["title": "a"]), .create))
            let token = try database.fetchZoneChanges(zone.zoneID, since: nil, limit: 100, desiredKeys: nil).token
            #expect(
                try database.fetchZoneChanges(zone.zoneID, since: token, limit: 100, desiredKeys: nil).changes.isEmpty)
            var bytes = Array(token.data)
            bytes[bytes.count - 1] ^= 1
            let altered = CKServerChangeToken(data: Data(bytes))
            #expect {
                _ = try database.fetchZoneChanges(zone.zoneID, since: altered, limit: 100, desiredKeys: nil)
            } throws: { ($0 as? CKError)?.message.contains("altered") == true }
        }
    }
}
