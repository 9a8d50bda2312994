import Foundation
import Stratus
import Testing

/// The long-lived operation fetchers of `CKContainer` on a container that never ran a long-lived
/// operation: nothing is outstanding, and the usual re-attach code compiles and finds nothing.
/// (`LongLivedOperationTests` re-attaches to persisted operations.)
@Suite struct DatabaseConvenienceLongLivedTests {
    @Test func noLongLivedOperationIsOutstanding() async throws {
        let container = OpsTestKit.makeContainer()
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
        #expect(try await container.longLivedOperation(for: "anything") == nil)
    }

    @Test func theUsualReattachCodeCompilesAndFindsNothing() async throws {
        let container = OpsTestKit.makeContainer()
        let reattached = OpsLog<CKOperation.ID>()
        let answered = OpsLog<String>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            container.fetchAllLongLivedOperationIDs { ids, error in
                answered.append("ids \(ids?.count ?? -1) \(error == nil)")
                for id in ids ?? [] {
                    container.fetchLongLivedOperation(withID: id) { operation, _ in
                        if let operation {
                            reattached.append(operation.operationID)
                            container.add(operation)
                        }
                    }
                }
                continuation.resume()
            }
        }
        #expect(answered.all == ["ids 0 true"])
        #expect(reattached.all.isEmpty)

        let operation = await withCheckedContinuation { continuation in
            container.fetchLongLivedOperation(withID: "unknown") { operation, error in
                continuation.resume(returning: operation == nil && error == nil)
            }
        }
        #expect(operation)
    }
}
