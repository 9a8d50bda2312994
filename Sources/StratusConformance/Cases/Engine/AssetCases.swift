import Foundation
import Stratus
import StratusBackend

/// Asset content of every size, stored in parts no larger than the SPI promises (decision 0015).
enum AssetCases {
    static var all: [ConformanceCase] {
        [
            sizesRoundTrip,
            nothingLeftBehind.reachingStorage(
                "counts the asset bytes kept in the store by reading its keys through a backend handle"),
        ]
    }

    /// Sizes around the 512 KiB part boundary, empty, and several parts with a short last one.
    static let sizes = [0, 1, 512 * 1024 - 1, 512 * 1024, 512 * 1024 + 1, 3 * 1024 * 1024 + 7]

    static let sizesRoundTrip = ConformanceCase(
        "assets.sizesRoundTrip",
        "Assets of 0 B to 3 MiB + 7 (around the 512 KiB part size) are saved and fetched back byte for byte, from a handle that did not save them."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Files"], in: context)[0]
        let files = try AssetFiles()
        defer { files.remove() }
        context.step("save one record per size, each with an asset of that many bytes")
        let records = try sizes.map { size in
            let record = CKRecord(recordType: "File", recordID: CKRecord.ID(recordName: "f\(size)", zoneID: zone))
            record["content"] = CKAsset(fileURL: try files.make(size))
            return record
        }
        _ = try Ops.saveAll(db, records, in: context)
        files.remove()

        context.step("fetch every record through a second container handle and compare the bytes")
        let other = try context.container().privateCloudDatabase
        for size in sizes {
            let fetched = try Reads.record(other, CKRecord.ID(recordName: "f\(size)", zoneID: zone), in: context)
            let url = try context.must("the asset of f\(size) has a file") {
                guard let url = (fetched["content"] as? CKAsset)?.fileURL else { throw AssetFiles.Missing() }
                return url
            }
            let bytes = try Data(contentsOf: url)
            try context.expect(
                bytes == AssetFiles.content(size), "the \(size)-byte asset reads back unchanged",
                actual: "\(bytes.count) bytes" + (bytes.count == size ? ", differing" : ""))
        }
    }

    static let nothingLeftBehind = ConformanceCase(
        "assets.nothingLeftBehind",
        "Replacing a multi-part asset and deleting its record (and a zone holding another) leaves none of their parts in the store."
    ) { context in
        let container = try context.container()
        let db = container.privateCloudDatabase
        let zones = try Ops.createZones(db, ["Photos", "Doomed"], in: context)
        let backend = try context.open()
        let files = try AssetFiles()
        defer { files.remove() }
        let before = try storedBytes(backend)
        let size = 2 * 1024 * 1024 + 3

        context.step("save a record with a 2 MiB asset, then replace the asset with another")
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p", zoneID: zones[0]))
        record["image"] = CKAsset(fileURL: try files.make(size))
        let saved = try Ops.saveAll(db, [record], in: context)[0]
        saved["image"] = CKAsset(fileURL: try files.make(size, seed: 7))
        _ = try Ops.saveAll(db, [saved], in: context)
        let withOne = try storedBytes(backend)
        try context.expect(
            withOne - before >= size && withOne - before < 2 * size, "the store holds one copy of the asset",
            actual: "\(withOne - before) more bytes than before")

        context.step("delete the record; save another in zone Doomed and delete that zone")
        let deleted = Ops.modify(db, delete: [record.recordID])
        try context.expect(deleted.error == nil, "the delete succeeds", actual: Reads.describe(deleted.error))
        let doomed = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "d", zoneID: zones[1]))
        doomed["image"] = CKAsset(fileURL: try files.make(size, seed: 3))
        _ = try Ops.saveAll(db, [doomed], in: context)
        let zoneDeletion = Ops.modifyZones(db, delete: [zones[1]])
        try context.expect(
            zoneDeletion.error == nil, "the zone deletion succeeds", actual: Reads.describe(zoneDeletion.error))
        let after = try storedBytes(backend)
        try context.expect(
            after < before + 64 * 1024, "no asset part is left in the store",
            actual: "\(after - before) bytes more than before the saves")
    }

    /// The bytes of every value in the store.
    static func storedBytes(_ backend: any DatabaseBackend) throws -> Int {
        try backend.read { txn in
            try txn.scan(KeyRange(from: [], to: [0xFF]), limit: Int.max).reduce(0) { $0 + $1.value.count }
        }
    }
}

/// Files with deterministic content of a given size, in a directory of their own.
struct AssetFiles {
    struct Missing: Error {}
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-assets-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Bytes that never repeat with a short period (a shifted or truncated copy differs).
    static func content(_ size: Int, seed: Int = 0) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: (($0 &+ seed) &* 2_654_435_761) >> 11) })
    }

    func make(_ size: Int, seed: Int = 0) throws -> URL {
        let file = directory.appendingPathComponent("\(size)-\(seed)-\(UUID())")
        try Self.content(size, seed: seed).write(to: file)
        return file
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
