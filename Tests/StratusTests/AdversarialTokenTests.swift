import Foundation
import Stratus
import StratusInMemory
import Testing

/// Garbage, truncated, altered and foreign change tokens and query cursors (decision 0003): each
/// is refused with `invalidArguments` or `changeTokenExpired`, never a crash, never a silent
/// misread, and a nil-token fetch still works afterwards.
@Suite struct AdversarialTokenTests {
    /// A token with exactly `bytes`, built the way a client restores one: by decoding it.
    static func token(_ bytes: [UInt8]) throws -> CKServerChangeToken {
        let json = try JSONSerialization.data(withJSONObject: ["data": Data(bytes).base64EncodedString()])
        return try JSONDecoder().decode(CKServerChangeToken.self, from: json)
    }

    /// The bytes of `token`, read through its `Codable` form.
    static func bytes(_ token: CKServerChangeToken) throws -> [UInt8] {
        let json = try JSONEncoder().encode(token)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: String])
        let base64 = try #require(object["data"])
        return Array(try #require(Data(base64Encoded: base64)))
    }

    /// Where `needle` starts in `haystack`.
    static func offset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle
        {
            return start
        }
        return nil
    }

    /// A private database with zone "Z" holding 5 records, and a token after them.
    static func fixture(
        container: CKContainer = OpsTestKit.makeContainer()
    ) async throws -> (database: CKDatabase, zoneID: CKRecordZone.ID, token: CKServerChangeToken) {
        let database = container.privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        try await OpsTestKit.save(
            (0..<5).map { i in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "r\(i)", zoneID: zoneID))
                record["index"] = i
                return record
            }, in: database)
        let token = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken
        return (database, zoneID, token)
    }

    /// The error of a zone-changes fetch from `token`.
    static func zoneFetchError(
        _ database: CKDatabase, _ zoneID: CKRecordZone.ID, _ token: CKServerChangeToken
    ) async -> CKError? {
        do {
            _ = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            return nil
        } catch {
            return error as? CKError
        }
    }

    @Test func garbageTruncatedAndHugeTokensAreInvalidArguments() async throws {
        let (database, zoneID, good) = try await Self.fixture()
        let real = try Self.bytes(good)
        #expect(real.count == 68)
        var flippedPosition = real
        flippedPosition[40] ^= 0x01
        var flippedTag = real
        flippedTag[real.count - 1] ^= 0x80
        var otherVersion = real
        otherVersion[1] = 3
        var unknownKind = real
        unknownKind[2] = 9
        var otherKind = real
        otherKind[2] = 2
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("one byte", [0x53]),
            ("not a Stratus token", Array("hello, world".utf8)),
            ("truncated", Array(real.dropLast())),
            ("truncated to half", Array(real.prefix(31))),
            ("one byte longer", real + [0]),
            ("huge", real + [UInt8](repeating: 0xAB, count: 1 << 20)),
            ("position altered", flippedPosition),
            ("tag altered", flippedTag),
            ("another format version", otherVersion),
            ("unknown kind", unknownKind),
            ("kind altered to database", otherKind),
        ]
        for (label, bytes) in cases {
            let error = await Self.zoneFetchError(database, zoneID, try Self.token(bytes))
            #expect(error?.code == .invalidArguments, "\(label): \(String(describing: error))")
            #expect(error?.localizedDescription.contains("change token") == true, "\(label)")
        }
        // The database fetch judges them the same way.
        for (label, bytes) in cases {
            do {
                _ = try await database.databaseChanges(since: try Self.token(bytes))
                Issue.record("\(label): a database fetch accepted a damaged token")
            } catch {
                #expect(OpsTestKit.code(error) == .invalidArguments, "\(label): \(error)")
            }
        }
        // Well-formed bytes of an unknown store cannot be authenticated without that store's key:
        // decision 0003 judges the store before the tag, so they read as another store's token.
        let random = try Self.token([0x53, 2, 1] + (0..<65).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        #expect(await Self.zoneFetchError(database, zoneID, random)?.code == .changeTokenExpired)
        // Nothing was harmed: the good token and a nil token still work.
        let again = try await database.recordZoneChanges(inZoneWith: zoneID, since: good)
        #expect(again.modificationResultsByID.isEmpty && again.deletions.isEmpty && !again.moreComing)
        #expect(try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).modificationResultsByID.count == 5)
    }

    /// A token whose store ID bytes were changed reads as a token of another store: expired, so
    /// the client resyncs (decision 0003, rule 2 comes before the tag check).
    @Test func aTokenWithAlteredStoreBytesIsExpired() async throws {
        let (database, zoneID, good) = try await Self.fixture()
        var bytes = try Self.bytes(good)
        bytes[5] ^= 0xFF
        let error = await Self.zoneFetchError(database, zoneID, try Self.token(bytes))
        #expect(error?.code == .changeTokenExpired)
    }

    /// A token archived with `NSKeyedArchiver`, its bytes edited inside the archive, unarchived
    /// again: refused, not misread.
    @Test func aTokenEditedInsideItsKeyedArchiveIsRefused() async throws {
        let (database, zoneID, good) = try await Self.fixture()
        let archive = Array(try NSKeyedArchiver.archivedData(withRootObject: good, requiringSecureCoding: true))
        let raw = try Self.bytes(good)
        let start = try #require(Self.offset(of: raw, in: archive))
        for index in [start + 2, start + 30, start + 45, start + 59] {
            var edited = archive
            edited[index] ^= 0x04
            let token = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: Data(edited)))
            let error = await Self.zoneFetchError(database, zoneID, token)
            #expect(error?.code == .invalidArguments, "byte \(index - start): \(String(describing: error))")
        }
        // A truncated archive does not unarchive (and does not crash).
        let truncated = Data(archive.prefix(archive.count / 2))
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: truncated)) == nil)
        // The untouched archive still works.
        let restored = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: Data(archive)))
        #expect(
            try await database.recordZoneChanges(inZoneWith: zoneID, since: restored).modificationResultsByID.isEmpty)
    }

    @Test func databaseAndZoneTokensAreNotInterchangeable() async throws {
        let (database, zoneID, zoneToken) = try await Self.fixture()
        let databaseToken = try await database.databaseChanges(since: nil).changeToken
        let error = await Self.zoneFetchError(database, zoneID, databaseToken)
        #expect(error?.code == .invalidArguments)
        #expect(error?.localizedDescription.contains("database change token") == true)
        do {
            _ = try await database.databaseChanges(since: zoneToken)
            Issue.record("a zone token was accepted by a database fetch")
        } catch {
            #expect(OpsTestKit.code(error) == .invalidArguments)
        }
    }

    @Test func aTokenOfAnotherZoneOrOfAnEarlierZoneOfTheSameNameIsExpired() async throws {
        let (database, zoneID, token) = try await Self.fixture()
        let other = try await OpsTestKit.makeZone("Other", in: database)
        #expect(await Self.zoneFetchError(database, other, token)?.code == .changeTokenExpired)

        // Delete and re-create "Z": the old token is expired; the new zone is empty.
        _ = try await database.deleteRecordZone(withID: zoneID)
        #expect(await Self.zoneFetchError(database, zoneID, token)?.code == .zoneNotFound)
        _ = try await OpsTestKit.makeZone("Z", in: database)
        let error = await Self.zoneFetchError(database, zoneID, token)
        #expect(error?.code == .changeTokenExpired)
        #expect(try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).modificationResultsByID.isEmpty)
    }

    /// Two containers over one store: a token of one container's zone is expired in the other
    /// container's zone of the same name, and so is a database token; a second container object
    /// with the same identifier is the same database, so its tokens are valid.
    @Test func tokensFromAnotherContainerOnTheSameStore() async throws {
        let store = InMemoryStore()
        let first = CKContainer(identifier: "iCloud.first", backend: InMemoryBackend(store: store))
        let second = CKContainer(identifier: "iCloud.second", backend: InMemoryBackend(store: store))
        let same = CKContainer(identifier: "iCloud.first", backend: InMemoryBackend(store: store))
        let (database, zoneID, token) = try await Self.fixture(container: first)
        let (otherDatabase, otherZone, _) = try await Self.fixture(container: second)
        #expect(otherZone == zoneID)

        #expect(await Self.zoneFetchError(otherDatabase, otherZone, token)?.code == .changeTokenExpired)
        let databaseToken = try await database.databaseChanges(since: nil).changeToken
        do {
            _ = try await otherDatabase.databaseChanges(since: databaseToken)
            Issue.record("a database token of another container was accepted")
        } catch {
            #expect(OpsTestKit.code(error) == .changeTokenExpired)
        }
        // Another scope of the same container is another database too.
        do {
            _ = try await first.sharedCloudDatabase.databaseChanges(since: databaseToken)
            Issue.record("a private database token was accepted by the shared database")
        } catch {
            #expect(OpsTestKit.code(error) == .changeTokenExpired)
        }

        let sameDatabase = same.privateCloudDatabase
        let changes = try await sameDatabase.recordZoneChanges(inZoneWith: zoneID, since: token)
        #expect(changes.modificationResultsByID.isEmpty && !changes.moreComing)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "late", zoneID: zoneID))
        try await OpsTestKit.save([record], in: sameDatabase)
        let seen = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
        #expect(seen.modificationResultsByID.keys.map(\.recordName) == ["late"])
        // The other container never sees it.
        let other = try await otherDatabase.recordZoneChanges(inZoneWith: otherZone, since: nil)
        #expect(!other.modificationResultsByID.keys.contains(record.recordID))
    }

    @Test func aTokenOfAnotherStoreIsExpired() async throws {
        let (_, _, token) = try await Self.fixture()
        let (database, zoneID, _) = try await Self.fixture()
        #expect(await Self.zoneFetchError(database, zoneID, token)?.code == .changeTokenExpired)
    }

    /// A token remains valid after purging nothing but becomes expired after a purge; a fetch
    /// from nil then works.
    @Test func aPurgedHistoryExpiresOldTokensOnly() async throws {
        let (database, zoneID, token) = try await Self.fixture()
        try database.purgeChangeHistory(in: zoneID)
        #expect(await Self.zoneFetchError(database, zoneID, token)?.code == .changeTokenExpired)
        let fresh = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil)
        #expect(fresh.modificationResultsByID.count == 5)
        #expect(
            try await database.recordZoneChanges(inZoneWith: zoneID, since: fresh.changeToken).modificationResultsByID
                .isEmpty)
    }

    // MARK: Query cursors

    /// A first page of 2 of the 5 "Note" records, and its cursor.
    static func firstPage(_ database: CKDatabase, _ zoneID: CKRecordZone.ID) async throws -> CKQueryOperation.Cursor {
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        let page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 2)
        #expect(page.matchResults.count == 2)
        return try #require(page.queryCursor)
    }

    static func continuationError(_ database: CKDatabase, _ cursor: CKQueryOperation.Cursor) async -> CKError? {
        do {
            _ = try await database.records(continuingMatchFrom: cursor, resultsLimit: 2)
            return nil
        } catch {
            return error as? CKError
        }
    }

    @Test func aCursorEditedInsideItsKeyedArchiveIsInvalidArguments() async throws {
        let (database, zoneID, _) = try await Self.fixture()
        let cursor = try await Self.firstPage(database, zoneID)
        let archive = Array(try NSKeyedArchiver.archivedData(withRootObject: cursor, requiringSecureCoding: true))
        // The cursor's bytes start with "Q" 1 and the store ID; find them through the store ID
        // shared with a change token of the same store.
        let tokenBytes = try Self.bytes(
            try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken)
        let storeID = Array(tokenBytes[3..<19])
        let storeAt = try #require(Self.offset(of: storeID, in: archive))
        let start = storeAt - 2
        #expect(archive[start] == 0x51 && archive[start + 1] == 1)
        for delta in [0, 1, 10, 20, 30, 40] {
            var edited = archive
            edited[start + delta] ^= 0x02
            guard let altered = try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKQueryCursor.self, from: Data(edited))
            else {
                continue
            }
            let error = await Self.continuationError(database, altered)
            #expect(error?.code == .invalidArguments, "byte \(delta): \(String(describing: error))")
        }
        // The intact archive continues where the first page stopped.
        let restored = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQueryCursor.self, from: Data(archive)))
        let rest = try await database.records(continuingMatchFrom: restored, resultsLimit: 10)
        #expect(rest.matchResults.count == 3 && rest.queryCursor == nil)
    }

    @Test func aCursorOfAnotherStoreOrAnotherDatabaseIsInvalidArguments() async throws {
        let container = OpsTestKit.makeContainer()
        let (database, zoneID, _) = try await Self.fixture(container: container)
        let cursor = try await Self.firstPage(database, zoneID)
        let (otherDatabase, _, _) = try await Self.fixture()
        #expect(await Self.continuationError(otherDatabase, cursor)?.code == .invalidArguments)
        let publicDatabase = container.publicCloudDatabase
        #expect(await Self.continuationError(publicDatabase, cursor)?.code == .invalidArguments)
    }

    /// A cursor whose archived query was edited (another record type of the same length) fails
    /// rather than continuing another query from a foreign position.
    @Test func aCursorWhoseArchivedQueryWasEditedIsInvalidArguments() async throws {
        let (database, zoneID, _) = try await Self.fixture()
        let other = CKRecord(recordType: "Nota", recordID: CKRecord.ID(recordName: "n", zoneID: zoneID))
        try await OpsTestKit.save([other], in: database)
        let cursor = try await Self.firstPage(database, zoneID)
        var archive = Array(try NSKeyedArchiver.archivedData(withRootObject: cursor, requiringSecureCoding: true))
        let at = try #require(Self.offset(of: Array("Note".utf8), in: archive))
        archive[at + 3] = UInt8(ascii: "a")
        let edited = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQueryCursor.self, from: Data(archive)))
        #expect(await Self.continuationError(database, edited)?.code == .invalidArguments)
    }
}
