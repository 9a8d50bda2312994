import Foundation
import Stratus
import StratusBackend
import StratusTestSupport

/// The backends the client patterns run on: each test gets fresh temporary storage of the
/// kind, through the same providers configuration uses.
typealias ClientBackend = TestBackendKind

extension TestBackendKind {
    /// Runs `body` with a container over fresh storage of this kind, then removes the storage.
    func withContainer<T>(_ body: (CKContainer) async throws -> T) async throws -> T {
        try await withTemporaryStorage(named: "client-patterns") { storage in
            try await body(CKContainer(identifier: "iCloud.client-patterns", backend: storage.open()))
        }
    }
}
