import Foundation
import Stratus
import StratusBackend
import StratusTestSupport

/// The backends the sync engine tests run on: fresh temporary storage of each kind, opened as
/// many times as a test has devices.
typealias SyncBackend = TestBackendKind

extension TestBackendKind {
    /// Runs `body` with fresh storage of this kind, whose `open()` gives a new container (a new
    /// handle on the same store) each call, then removes the storage.
    func withStore<T>(_ body: (_ open: @escaping () throws -> CKContainer) async throws -> T) async throws -> T {
        try await withTemporaryStorage(named: "sync-engine") { storage in
            try await body { CKContainer(identifier: "iCloud.sync-engine", backend: try storage.open()) }
        }
    }

    /// Runs `body` with two devices, A and B, started on fresh storage of this kind (each on a
    /// handle of its own), and `open` for more handles.
    func withTwoDevices(
        automaticallySync: Bool = false,
        _ body: (_ a: Device, _ b: Device, _ open: @escaping () throws -> CKContainer) async throws -> Void
    ) async throws {
        try await withStore { open in
            let (a, b) = (Device("A"), Device("B"))
            a.start(try open().privateCloudDatabase, automaticallySync: automaticallySync)
            b.start(try open().privateCloudDatabase, automaticallySync: automaticallySync)
            try await body(a, b, open)
        }
    }

    /// Runs `body` with fresh storage of this kind, whose `open()` gives a new backend handle on
    /// it each call, then removes the storage.
    func withBackends<T>(_ body: (_ open: () throws -> any DatabaseBackend) async throws -> T) async throws -> T {
        try await withTemporaryStorage(named: "sync-engine") { storage in try await body { try storage.open() } }
    }
}
