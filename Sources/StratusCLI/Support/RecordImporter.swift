import Stratus

/// Saves an import's records request by request, with the `allKeys` policy, parents before
/// children.
///
/// Records are saved in input order. A record whose parent is neither stored nor in the same
/// request fails with `referenceViolation`; it is held back until its parent is saved, then
/// saved in the next request (its own held-back children after it). At the end, the records
/// still held back are saved together once more — those whose parent appeared nowhere then
/// fail, and are reported. At most ``maximumHeldBack`` records are held back at once.
///
/// A name given again later wins, as importing twice would: a later line of a held-back
/// record's name replaces the held-back record (which is then never saved), whether the later
/// one is saved at once or held back in turn.
final class RecordImporter {
    /// The most records one request saves (CloudKit's limit).
    static let requestSize = 400
    /// The most records held back for their parent at once.
    static let maximumHeldBack = 100_000

    private let database: CKDatabase
    private let limit: Int
    /// Held-back records by the name of the parent they wait for.
    private var waiting: [String: [CKRecord]] = [:]
    /// The parent each held-back record waits for, by the held-back record's name.
    private var waitingFor: [String: String] = [:]
    private(set) var heldBack = 0
    /// How many records were saved.
    private(set) var saved = 0
    /// How many records failed, each reported on standard error.
    private(set) var failed = 0

    /// An importer into `database`, holding back at most `limit` records.
    init(database: CKDatabase, limit: Int = RecordImporter.maximumHeldBack) {
        self.database = database
        self.limit = limit
    }

    /// Saves `records` (at most ``requestSize``), then any held-back records whose parent
    /// they saved.
    ///
    /// - Throws: the request's error, or ``CLIError`` when more than the limit of records wait
    ///   for their parents.
    func save(_ records: [CKRecord]) async throws {
        for record in records { dropHeldBack(record.recordID.recordName) }
        var ready = try await request(records, holdingBack: true)
        while !ready.isEmpty {
            let next = Array(ready.prefix(Self.requestSize))
            ready.removeFirst(next.count)
            ready += try await request(next, holdingBack: true)
        }
        guard heldBack <= limit else {
            throw CLIError(
                "more than \(limit) records wait for a parent that has not appeared in the input yet; "
                    + Self.imported(saved) + ". Put parents before their children, or import the file in parts")
        }
    }

    /// Saves the records still held back, together, as long as that saves any (a parent may
    /// be held back behind its own child); then reports those that still fail.
    func finish() async throws {
        while heldBack > 0 {
            let before = saved
            let rest = takeHeldBack()
            for start in stride(from: 0, to: rest.count, by: Self.requestSize) {
                try await save(Array(rest[start..<min(start + Self.requestSize, rest.count)]))
            }
            guard saved == before else { continue }
            let failing = takeHeldBack()
            for start in stride(from: 0, to: failing.count, by: Self.requestSize) {
                _ = try await request(
                    Array(failing[start..<min(start + Self.requestSize, failing.count)]), holdingBack: false)
            }
        }
    }

    /// Every held-back record, by the name of its parent, no longer held.
    private func takeHeldBack() -> [CKRecord] {
        let records = waiting.keys.sorted().flatMap { waiting[$0] ?? [] }
        waiting = [:]
        waitingFor = [:]
        heldBack = 0
        return records
    }

    /// Forgets the held-back record named `name`, if any: a later line of that name replaces it.
    private func dropHeldBack(_ name: String) {
        guard let parent = waitingFor.removeValue(forKey: name) else { return }
        waiting[parent]?.removeAll { $0.recordID.recordName == name }
        if waiting[parent]?.isEmpty == true { waiting[parent] = nil }
        heldBack -= 1
    }

    /// `no record was imported`, `1 record was imported before it (it stays saved)`, `12
    /// records were imported before it (they stay saved)`: what stays of a stopped import.
    static func imported(_ count: Int, before: String = "") -> String {
        let before = before.isEmpty ? "" : " " + before
        switch count {
        case 0: return "no record was imported" + before
        case 1: return "1 record was imported\(before) (it stays saved)"
        default: return "\(count) records were imported\(before) (they stay saved)"
        }
    }

    /// Saves `records` in one request; holds back (or reports) the children whose parent is
    /// missing and returns the held-back records this request released.
    private func request(_ records: [CKRecord], holdingBack: Bool) async throws -> [CKRecord] {
        guard !records.isEmpty else { return [] }
        let results = try await database.modifyRecords(
            saving: records, deleting: [], savePolicy: .allKeys, atomically: false)
        var released: [CKRecord] = []
        for record in records {
            switch results.saveResults[record.recordID] {
            case .success:
                saved += 1
                if let children = waiting.removeValue(forKey: record.recordID.recordName) {
                    heldBack -= children.count
                    for child in children { waitingFor[child.recordID.recordName] = nil }
                    released += children
                }
            case .failure(let error):
                if holdingBack, let parent = record.parent?.recordID.recordName,
                    (error as? CKError)?.code == .referenceViolation
                {
                    waiting[parent, default: []].append(record)
                    waitingFor[record.recordID.recordName] = parent
                    heldBack += 1
                } else {
                    failed += 1
                    Output.error("record '\(record.recordID.recordName)': \(CLIError.describe(error))")
                }
            case nil:
                break
            }
        }
        return released
    }
}
