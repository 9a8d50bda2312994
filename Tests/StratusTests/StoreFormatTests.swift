import Foundation
import StratusBackend
import StratusInMemory
import Testing

@testable import Stratus

/// A store is opened only in the format this version writes (decision 0008): a store of
/// format 1 (records outside the change log) is refused with a clear error, not misread.
@Suite struct StoreFormatTests {
    @Test func aNewStoreIsWrittenInTheCurrentFormat() throws {
        let backend = InMemoryBackend()
        _ = try Engine(backend: backend)
        let meta = try backend.read { try $0.get(StoreLayout.storeMetaKey) }
        #expect(meta?.first == Engine.storeFormat)
        #expect(meta?.count == 49)
        // Reopening it works and keeps its identity.
        #expect(try Engine(backend: backend).storeID == Array(meta![1..<17]))
    }

    @Test(arguments: [UInt8(1), 3])
    func aStoreOfAnotherFormatIsRefusedWithIncompatibleVersion(format: UInt8) async throws {
        let backend = InMemoryBackend()
        try backend.write { txn in
            try txn.set(StoreLayout.storeMetaKey, [format] + [UInt8](repeating: 7, count: 48))
        }
        let container = CKContainer(identifier: "iCloud.test", backend: backend)
        let database = container.privateCloudDatabase
        await #expect {
            _ = try await database.allRecordZones()
        } throws: { error in
            guard let error = error as? CKError, error.code == .incompatibleVersion else { return false }
            let message = error.message
            return message.contains("format \(format)") && message.contains("Delete the store")
        }
        // Nothing was rewritten: the store keeps its format byte.
        #expect(try backend.read { try $0.get(StoreLayout.storeMetaKey) }?.first == format)
    }
}
