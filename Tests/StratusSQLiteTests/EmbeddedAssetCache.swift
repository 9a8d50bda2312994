import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Records with assets, and the embedded asset cache's directory as the tests see it.
enum EmbeddedAssetCache {
    /// Distinct content number `seed`, ``EmbeddedAssetCacheTests/assetBytes`` long.
    static func content(_ seed: Int) -> Data {
        Data((0..<EmbeddedAssetCacheTests.assetBytes).map { UInt8(truncatingIfNeeded: $0 &* (2 * seed + 3) &+ seed) })
    }

    /// Saves records `a<first>`… with `fields` assets each, of content `seed` = record × fields
    /// + field, and answers the files of their first assets, which the save handed out: files
    /// of the asset cache.
    @discardableResult
    static func save(_ count: Int, from first: Int = 0, fields: Int = 1, in database: CKDatabase) async throws
        -> [URL]
    {
        let files = try TemporaryDirectory(prefix: "embedded-asset-files")
        defer { try? files.remove() }
        var records: [CKRecord] = []
        for index in first..<(first + count) {
            let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "a\(index)"))
            for field in 0..<fields {
                let file = files.appending("\(index)-\(field).bin")
                try content(index * fields + field).write(to: file)
                record["f\(field)"] = CKAsset(fileURL: file)
            }
            records.append(record)
        }
        let saved = try await database.modifyRecords(saving: records, deleting: [])
        return try records.map { record in
            let result = try #require(saved.saveResults[record.recordID])
            return try #require((try result.get()["f0"] as? CKAsset)?.fileURL)
        }
    }

    /// Fetches record `a<index>` and answers its assets' files, in field order.
    static func fetch(_ index: Int, fields: Int = 1, from database: CKDatabase) async throws -> [URL] {
        let record = try await database.record(for: CKRecord.ID(recordName: "a\(index)"))
        return try (0..<fields).map { try #require((record["f\($0)"] as? CKAsset)?.fileURL) }
    }

    /// The bytes of the cached files in the directory of `file`, or in `file` when it is a
    /// directory (not the lock, not partial files).
    static func bytes(in file: URL) throws -> Int {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory)
        let directory = isDirectory.boolValue ? file : file.deletingLastPathComponent()
        var total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasPrefix(".") {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            total += (attributes[.size] as? Int) ?? 0
        }
        return total
    }

    /// The partial files (`.name.UUID`) in `directory`.
    static func partialFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(".") && $0 != ".lock"
        }
    }
}
