import Foundation
import Stratus
import StratusConfiguration
import StratusTestSupport
import Testing

/// `remoteAssetCacheBytes` bounds the embedded default containers' materialized assets too
/// (decision 0022, "Embedded too").
extension BootstrapTests {
    @Test func theAssetCacheSizeReachesTheEmbeddedDefaultContainers() async throws {
        let data = try TemporaryDirectory(prefix: "stratus-boot-assets")
        defer { try? data.remove() }
        let configured = try await StratusBootstrap.configureDefaultContainers(
            environment: [
                "STRATUS_BACKEND": "sqlite://\(data.path)/store.sqlite", "STRATUS_CONTAINER": "iCloud.boot.assets",
                "STRATUS_REMOTE_ASSET_CACHE_BYTES": "150000",
            ])
        defer { try? configured.backend?.close() }
        let database = CKContainer(identifier: "iCloud.boot.assets").privateCloudDatabase

        // Two 100 kB assets, handed out by their saves, then unused for an hour; a third save's
        // trim evicts them to keep 150 kB (the default, 512 MiB, would keep all three).
        var files: [URL] = []
        defer {
            if let file = files.first { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        }
        for index in 0..<3 {
            if index == 2 {
                for file in files {
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: file.path)
                }
            }
            let source = data.appending("\(index).bin")
            try Data(repeating: UInt8(index), count: 100_000).write(to: source)
            let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p\(index)"))
            record["image"] = CKAsset(fileURL: source)
            let saved = try await database.save(record)
            files.append(try #require((saved["image"] as? CKAsset)?.fileURL))
        }
        #expect(files.map { FileManager.default.fileExists(atPath: $0.path) } == [false, false, true])
        #expect(try Data(contentsOf: files[2]) == Data(repeating: 2, count: 100_000))
    }
}
