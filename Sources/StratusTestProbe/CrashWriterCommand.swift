import Foundation
import Stratus
import StratusTestSupport

/// `crash-writer <store> <zone> <seed>`: writes seeded random batches of records into a
/// custom zone of a store (a SQLite file path, or an `lmdb:` URL; see ``Probe/openStore(_:)``)
/// through the CloudKit API, forever (or until a two-minute
/// safety limit), and reports on standard output exactly what was acknowledged — so that a
/// test can kill it with `SIGKILL` at any moment and check the store against the report.
///
/// The store is opened with `CKContainer(identifier:backend:)` over a `SQLiteBackend` or an
/// `LMDBBackend` with the default (full) durability. The zone is created if it does not exist, then the program
/// learns what the zone holds with a change fetch from a `nil` token, and continues from
/// there: relaunching it on the same store continues the same history.
///
/// Output, one line per event, each written with a single `write(2)` (no buffering), so a
/// line is on the pipe before the next step starts; a line cut short by the kill has no
/// newline and must be ignored:
/// - `BEGIN <n> <json>` before batch `n` is submitted: `{"saves": {name: {field: value}},
///   "deletes": [name]}`, every saved record's complete fields after the batch (values encoded
///   by `RecordSnapshot.canonicalValue(_:_:)`). Every saved record carries `batch = n`.
/// - `ACK <n> <json>` once batch `n` was acknowledged (the operation's result block said
///   success and every per-record result succeeded): `{"saved": {name: change tag},
///   "deleted": [name]}`.
/// - `TOKEN <base64> <json>` at start-up and after every ``tokenInterval`` acknowledged
///   batches: a zone change token (`NSKeyedArchiver`, secure coding) from a change fetch, and
///   `{name: change tag}` of the mirror the program built from its change fetches alone (from
///   `nil` at start-up, then from its previous token). Before printing, the program checks
///   that the mirror equals what it saved; a difference ends it with status 1.
///
/// Batch numbers continue across launches: the first batch is one more than the highest
/// `batch` field in the zone (every batch saves at least one record, so the last committed
/// batch is always visible).
enum CrashWriterCommand {
    static let name = "crash-writer"
    static let usage = "crash-writer <sqlite path | lmdb: URL> <zone> <seed>"

    /// The container the program writes to; a test reading the store must use the same one.
    static let containerIdentifier = "iCloud.stratus.crash-writer"
    /// The type of every record written.
    static let recordType = "CrashItem"
    /// A `TOKEN` line follows every this many acknowledged batches.
    static let tokenInterval = 5
    /// Above this many records, batches delete more than they create.
    static let targetPopulation = 120
    /// The program stops by itself (status 0, line `DONE`) after this long, in case the test
    /// that launched it died without killing it.
    static let safetyLimit: TimeInterval = 120

    /// `BEGIN` payload.
    struct Begin: Codable {
        var saves: [String: [String: String]]
        var deletes: [String]
    }

    /// `ACK` payload.
    struct Ack: Codable {
        var saved: [String: String]
        var deleted: [String]
    }

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 3, !arguments[1].isEmpty, let seed = UInt64(arguments[2]) else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let backend = try Probe.openStore(arguments[0])
        let container = CKContainer(identifier: containerIdentifier, backend: backend)
        var writer = Writer(
            database: container.privateCloudDatabase,
            zoneID: CKRecordZone.ID(zoneName: arguments[1], ownerName: CKCurrentUserDefaultName),
            generator: SeededGenerator(seed: seed))
        try writer.run()
        try backend.close()
    }
}

/// The writing loop of ``CrashWriterCommand``.
private struct Writer {
    let database: CKDatabase
    let zoneID: CKRecordZone.ID
    var generator: SeededGenerator

    /// The zone's records as this program saved them (the server's copies), by name.
    var known: [String: CKRecord] = [:]
    /// The zone's records as the program's change fetches delivered them, by name.
    var mirror: [String: CKRecord] = [:]
    /// The token of the last change fetch.
    var token: CKServerChangeToken?
    /// Names of records this program deleted, some of which it creates again.
    var deletedNames: [String] = []

    init(database: CKDatabase, zoneID: CKRecordZone.ID, generator: SeededGenerator) {
        self.database = database
        self.zoneID = zoneID
        self.generator = generator
    }

    mutating func run() throws {
        try createZone()
        try syncAndReport(checking: false)
        known = mirror
        var batch = (known.values.compactMap { $0["batch"] as Int64? }.max() ?? 0) + 1
        let started = Date()
        var acknowledged = 0
        while Date().timeIntervalSince(started) < CrashWriterCommand.safetyLimit {
            try write(batch: batch)
            acknowledged += 1
            batch += 1
            if acknowledged % CrashWriterCommand.tokenInterval == 0 {
                try syncAndReport(checking: true)
            }
        }
        emit("DONE")
    }

    func createZone() throws {
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zoneID)])
        let outcome = Outcome<Void>()
        operation.modifyRecordZonesResultBlock = { outcome.set($0) }
        run(operation)
        try outcome.get()
    }

    /// Plans batch `number`, announces it, saves it and reports its acknowledgement.
    mutating func write(batch number: Int64) throws {
        let (saves, deletes) = plan(batch: number)
        let begin = CrashWriterCommand.Begin(
            saves: Dictionary(
                uniqueKeysWithValues: saves.map { ($0.recordID.recordName, RecordSnapshot.canonicalFields($0)) }),
            deletes: deletes.map(\.recordName))
        emit("BEGIN \(number) \(json(begin))")

        let operation = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
        operation.isAtomic = true
        let results = Outcome<[String: Result<CKRecord, any Error>]>()
        results.set(.success([:]))
        let deleteResults = Outcome<[String: Result<Void, any Error>]>()
        deleteResults.set(.success([:]))
        let final = Outcome<Void>()
        operation.perRecordSaveBlock = { id, result in results.update { $0[id.recordName] = result } }
        operation.perRecordDeleteBlock = { id, result in deleteResults.update { $0[id.recordName] = result } }
        operation.modifyRecordsResultBlock = { final.set($0) }
        run(operation)

        do {
            try final.get()
        } catch {
            throw ProbeFailure("batch \(number) failed: \(error)")
        }
        let saved = try results.get()
        let deleted = try deleteResults.get()
        guard saved.count == saves.count, deleted.count == deletes.count else {
            throw ProbeFailure(
                "batch \(number): \(saved.count) of \(saves.count) save results, \(deleted.count) of \(deletes.count) delete results"
            )
        }
        var ack = CrashWriterCommand.Ack(saved: [:], deleted: [])
        for (name, result) in saved {
            guard case .success(let record) = result else {
                throw ProbeFailure("batch \(number): saving \(name) failed: \(result)")
            }
            known[name] = record
            ack.saved[name] = record.recordChangeTag ?? ""
        }
        for (name, result) in deleted {
            guard case .success = result else {
                throw ProbeFailure("batch \(number): deleting \(name) failed: \(result)")
            }
            known[name] = nil
            deletedNames.append(name)
            ack.deleted.append(name)
        }
        ack.deleted.sort()
        emit("ACK \(number) \(json(ack))")
    }

    /// 1–20 items: the first always a save, then creates, modifications of known records and
    /// deletions, deleting more the more records there are.
    mutating func plan(batch number: Int64) -> ([CKRecord], [CKRecord.ID]) {
        let size = Int.random(in: 1...20, using: &generator)
        var used = Set<String>()
        var saves: [CKRecord] = []
        var deletes: [CKRecord.ID] = []
        let deleteChance = known.count > CrashWriterCommand.targetPopulation ? 0.45 : 0.12
        // Sorted, so that the same seed picks the same records (dictionary order is not stable
        // across processes).
        let names = known.keys.sorted()
        for slot in 0..<size {
            let roll = Double.random(in: 0..<1, using: &generator)
            let candidates = names.filter { !used.contains($0) }
            if slot > 0, roll < deleteChance, let name = candidates.randomElement(using: &generator) {
                used.insert(name)
                deletes.append(CKRecord.ID(recordName: name, zoneID: zoneID))
            } else if roll < deleteChance + 0.3, let name = candidates.randomElement(using: &generator) {
                used.insert(name)
                let record = known[name]!.copy() as! CKRecord
                modify(record, batch: number)
                saves.append(record)
            } else {
                var name = randomName()
                if Bool.random(using: &generator), let old = deletedNames.randomElement(using: &generator),
                    known[old] == nil
                {
                    name = old  // a record created again under the name of one deleted
                }
                guard !used.contains(name), known[name] == nil else { continue }
                used.insert(name)
                let record = CKRecord(
                    recordType: CrashWriterCommand.recordType, recordID: .init(recordName: name, zoneID: zoneID))
                record["title"] = randomTitle()
                modify(record, batch: number)
                saves.append(record)
            }
        }
        if saves.isEmpty {
            // Every slot collided with a name in use: save one fresh record.
            let record = CKRecord(
                recordType: CrashWriterCommand.recordType,
                recordID: .init(recordName: randomName() + "-\(number)", zoneID: zoneID))
            modify(record, batch: number)
            saves.append(record)
        }
        return (saves, deletes)
    }

    /// Marks `record` with batch `number` and changes, adds or removes a few fields.
    mutating func modify(_ record: CKRecord, batch number: Int64) {
        record["batch"] = number
        if Bool.random(using: &generator) { record["title"] = randomTitle() }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: record["count"] = Int64.random(in: .min ... .max, using: &generator)
        case 1: record["count"] = nil
        default: break
        }
        if Bool.random(using: &generator) { record["score"] = Double.random(in: -1e9...1e9, using: &generator) }
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: record["data"] = nil
        case 1, 2:
            // Now and then a larger value, so that commits take a little longer.
            let count =
                Int.random(in: 0...10, using: &generator) == 0 ? 16_384 : Int.random(in: 0...512, using: &generator)
            record["data"] = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        default: break
        }
        if Int.random(in: 0..<4, using: &generator) == 0 {
            record["tags"] = (0..<Int.random(in: 1...4, using: &generator)).map { _ in randomName() }
        }
    }

    mutating func randomName() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_")
        return "r"
            + String(
                (0..<Int.random(in: 4...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }

    mutating func randomTitle() -> String {
        let alphabet = Array("abc xyz éü漢🌩\"\\\n\t")
        return String(
            (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Fetches the zone's changes since the last token (with a random page size, so that
    /// intermediate tokens are used too), applies them to the mirror, checks the mirror
    /// against what was saved when `checking`, and prints the new token.
    mutating func syncAndReport(checking: Bool) throws {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(
            previousServerChangeToken: token, resultsLimit: [0, 3, 10, 50].randomElement(using: &generator)!)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        /// A change as delivered; a record that could not be read is a failure.
        enum Change {
            case changed(CKRecord)
            case deleted(String)
            case failed(String, any Error)
        }
        let changes = Outcome<[Change]>()
        changes.set(.success([]))
        let zoneResult = Outcome<CKServerChangeToken>()
        operation.recordWasChangedBlock = { id, result in
            changes.update { list in
                switch result {
                case .success(let record): list.append(.changed(record))
                case .failure(let error): list.append(.failed(id.recordName, error))
                }
            }
        }
        operation.recordWithIDWasDeletedBlock = { id, _ in changes.update { $0.append(.deleted(id.recordName)) } }
        operation.recordZoneFetchResultBlock = { _, result in zoneResult.set(result.map(\.serverChangeToken)) }
        run(operation)
        let newToken: CKServerChangeToken
        do {
            newToken = try zoneResult.get()
        } catch {
            throw ProbeFailure("change fetch failed: \(error)")
        }
        for change in try changes.get() {
            switch change {
            case .changed(let record): mirror[record.recordID.recordName] = record
            case .deleted(let name): mirror[name] = nil
            case .failed(let name, let error):
                throw ProbeFailure("change fetch delivered an error for \(name): \(error)")
            }
        }
        token = newToken
        let tags = mirror.mapValues { $0.recordChangeTag ?? "" }
        if checking {
            let expected = known.mapValues { $0.recordChangeTag ?? "" }
            guard tags == expected else {
                throw ProbeFailure(
                    "the change fetches' mirror differs from what was saved: mirror \(json(tags)), saved \(json(expected))"
                )
            }
        }
        let archive = try NSKeyedArchiver.archivedData(withRootObject: newToken, requiringSecureCoding: true)
        emit("TOKEN \(archive.base64EncodedString()) \(json(tags))")
    }

    func run(_ operation: CKDatabaseOperation) {
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
    }

    func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The payloads are dictionaries and arrays of strings: encoding cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// Writes `line` and a newline to standard output with one unbuffered write.
    func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// A failure of the crash writer, reported on standard error (status 1).
private struct ProbeFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A value set by an operation's callback (which runs on the operation's queue) and read
/// after the operation finished.
private final class Outcome<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { self.result = result } }

    func update(_ body: (inout T) -> Void) {
        lock.withLock {
            if case .success(var value) = result {
                body(&value)
                result = .success(value)
            }
        }
    }

    func get() throws -> T {
        guard let result = lock.withLock({ result }) else { throw ProbeFailure("the operation reported no result") }
        return try result.get()
    }
}
