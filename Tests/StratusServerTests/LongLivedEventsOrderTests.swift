import Foundation
import StratusSQLite
import StratusTestSupport
import Synchronization
import Testing

@testable import Stratus
@testable import StratusServer

/// The events endpoint reads an operation's status before its events (decision 0014.9): an
/// operation that completes between the two reads is answered as running with the events it
/// journaled, never as completed without its last ones. The operation completes between the
/// reads of a real journal on a real SQLite file: ``CompletingBetweenReads`` finishes it right
/// after the endpoint's first read, whichever that is.
@Suite("stratusd: the long-lived events read order")
struct LongLivedEventsOrderTests {
    static let owner = Namespace(container: "iCloud.com.example.events", environment: .development, owner: "_alice")

    @Test func anOperationCompletingBetweenTheReadsIsNotAnsweredCompletedWithoutItsEvents() throws {
        let directory = try TemporaryDirectory(prefix: "stratus-events-order")
        defer { try? directory.remove() }
        let engine = try Engine(
            backend: try SQLiteBackend(configuration: .init(location: .file(path: directory.path + "/store.sqlite"))))
        let journal = try HostedJournal(engine: engine, owner: Self.owner)
        let operation = CKModifyRecordsOperation(recordsToSave: nil, recordIDsToDelete: [CKRecord.ID(recordName: "r")])
        _ = try journal.submit(
            try LongLivedSubmission(encoding: operation), id: "op",
            target: JournalTarget(namespace: Self.owner, caller: Caller(userRecordName: "_alice", role: .user)),
            scope: .private, listed: true, holder: "elsewhere", leaseExpiry: .greatestFiniteMagnitude)

        let interleaved = CompletingBetweenReads(journal, id: "op")
        let first = try LongLivedEvents.read("op", from: 0, limit: 100, in: interleaved)
        #expect(interleaved.completed, "the operation completed between the two reads")
        #expect(first.status.state == .running, "the status read first still saw it running")
        #expect(first.events.map(\.sequence) == [0], "and the events read second hold its final callback")

        // A client reads on from the events it has; the next answer says completed, with nothing
        // it missed.
        let next = try LongLivedEvents.read("op", from: 1, limit: 100, in: journal)
        #expect(next.status.state == .completed && next.status.nextSequence == 1)
        #expect(next.events.isEmpty)
        for (answer, from) in [(first, Int64(0)), (next, Int64(1))] where answer.status.state != .running {
            #expect(
                answer.events.map(\.sequence) == Array(from..<answer.status.nextSequence),
                "a completed answer holds every event up to its last")
        }
    }
}

/// A real journal whose operation `id` is finished — its final callback journaled and its state
/// completed, as ``HostedJournal/abandon(_:attempts:)`` does — right after the first read,
/// status or events, made through it.
final class CompletingBetweenReads: LongLivedEventSource, Sendable {
    let journal: HostedJournal
    let id: String
    private let done = Mutex(false)

    init(_ journal: HostedJournal, id: String) {
        self.journal = journal
        self.id = id
    }

    /// Whether the operation was completed after a read.
    var completed: Bool { done.withLock { $0 } }

    func status(_ id: String) throws -> HostedOperationStatus? {
        defer { completeOnce() }
        return try journal.status(id)
    }

    func events(_ id: String, from: Int64, limit: Int) throws -> [(sequence: Int64, bytes: [UInt8])] {
        defer { completeOnce() }
        return try journal.events(id, from: from, limit: limit)
    }

    private func completeOnce() {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        if first { #expect((try? journal.abandon(id, attempts: 1)) == true, "the operation was finished") }
    }
}
