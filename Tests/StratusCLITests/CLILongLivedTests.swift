import Foundation
import Stratus
import StratusSQLite
import Testing

@Suite("stratus: long-lived operations")
struct CLILongLivedTests {
    /// An operation held right after it was persisted shows in another process's list, and
    /// `stratus long-lived cancel` takes it off.
    @Test(.timeLimit(.minutes(5))) func listShowAndCancelAnOperationOfAnotherProcess() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let backend = try SQLiteBackend(
            configuration: .init(location: .file(path: workspace.directory.path + "/store.sqlite")))
        defer { try? backend.close() }
        let container = CKContainer(identifier: "iCloud.default", backend: backend)

        let operation = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "Note")], recordIDsToDelete: nil)
        operation.configuration.isLongLived = true
        let gate = DispatchSemaphore(value: 0)
        let (persisted, signal) = AsyncStream<Void>.makeStream()
        operation.longLivedOperationWasPersistedBlock = {
            signal.yield()
            gate.wait()
        }
        let (finished, done) = AsyncStream<Void>.makeStream()
        operation.modifyRecordsResultBlock = { _ in done.yield() }
        container.privateCloudDatabase.add(operation)
        for await _ in persisted { break }
        let id = operation.operationID

        let listed = try await workspace.stratus("long-lived", "list")
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(listed.output.hasPrefix("\(id)  CKModifyRecordsOperation  running  persisted 20"))

        let shown = try await workspace.stratus("long-lived", "show", id, "--json")
        let summary = try #require(try json(shown.output) as? [String: Any])
        #expect(summary["type"] as? String == "CKModifyRecordsOperation")
        #expect(summary["database"] as? String == "private")
        #expect(summary["state"] as? String == "running")
        #expect(summary["journaledCallbacks"] as? Int == 0)
        #expect(summary["finishedAt"] == nil)
        let persistedAt = try #require(summary["persistedAt"] as? String)
        let persistedDate = try Date(persistedAt, strategy: .iso8601)
        #expect(abs(persistedDate.timeIntervalSinceNow) < 600)

        let text = try await workspace.stratus("long-lived", "show", id)
        #expect(text.output.contains("state      running\n"))
        #expect(text.output.contains("callbacks  0 journaled\n"))

        let cancelled = try await workspace.stratus("long-lived", "cancel", id)
        #expect(cancelled.status == 0, "\(cancelled.errorOutput)")
        #expect(cancelled.output == "cancelled \(id)\n")
        let after = try await workspace.stratus("long-lived", "list", "--json")
        #expect(try json(after.output) as? [Any] != nil)
        #expect(!after.output.contains(id))

        gate.signal()
        for await _ in finished { break }
    }
}
