import Foundation
import StratusBackend

/// The stored content of assets, in parts no larger than the backend SPI promises to keep
/// (decision 0015).
///
/// Part 0 is the value at `keys.asset(contentID)`, where content was always stored; when it is
/// exactly ``partSize`` bytes long, parts 1… follow at `keys.assetPart(contentID, index)`. A
/// part 0 of any other length is the whole content, so content written before parts existed
/// (one value of any size) reads unchanged. Every read, write, copy and removal of asset
/// content goes through this type.
struct AssetParts: Sendable {
    /// The size of every part but the last: half the 1 MiB the SPI promises.
    static let partSize = 512 << 10

    let keys: DatabaseKeys

    /// Stores `bytes` as content `contentID` (replacing nothing: content IDs are new).
    func write(_ bytes: [UInt8], as contentID: String, _ txn: any BackendWriteTransaction) throws {
        guard bytes.count >= Self.partSize else {
            try txn.set(keys.asset(contentID), bytes)
            return
        }
        var index: Int64 = 0
        var start = 0
        // Content of exactly a multiple of the part size ends with a full part and nothing
        // after it; readers stop at the last part there is.
        while start < bytes.count {
            let end = min(start + Self.partSize, bytes.count)
            try txn.set(key(contentID, index), Array(bytes[start..<end]))
            start = end
            index += 1
        }
    }

    /// The whole content `contentID`; `nil` when there is none.
    func read(_ contentID: String, _ txn: any BackendReadTransaction) throws -> [UInt8]? {
        guard var content = try txn.get(keys.asset(contentID)) else { return nil }
        guard content.count == Self.partSize else { return content }
        for part in try txn.scan(keys.assetParts(contentID), limit: Int.max) {
            content += part.value
        }
        return content
    }

    /// Part `index` of content `contentID`, and whether another part may follow it; `nil`
    /// when the content has no such part (or none at all).
    func part(_ index: Int64, of contentID: String, _ txn: any BackendReadTransaction) throws
        -> (bytes: [UInt8], more: Bool)?
    {
        guard let bytes = try txn.get(key(contentID, index)) else { return nil }
        return (bytes, bytes.count == Self.partSize)
    }

    /// Writes content `contentID` to `file` part by part; `false` when there is no content.
    func copy(_ contentID: String, to file: URL, _ txn: any BackendReadTransaction) throws -> Bool {
        guard let first = try part(0, of: contentID, txn) else { return false }
        guard FileManager.default.createFile(atPath: file.path, contents: Data(first.bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        guard first.more else { return true }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        for part in try txn.scan(keys.assetParts(contentID), limit: Int.max) {
            try handle.write(contentsOf: part.value)
        }
        return true
    }

    /// Copies content `contentID` to a new content `copy`; its size, or `nil` when there is
    /// no content to copy.
    func copy(_ contentID: String, as copy: String, _ txn: any BackendWriteTransaction) throws -> Int64? {
        guard let first = try txn.get(keys.asset(contentID)) else { return nil }
        try txn.set(keys.asset(copy), first)
        var size = Int64(first.count)
        guard first.count == Self.partSize else { return size }
        for part in try txn.scan(keys.assetParts(contentID), limit: Int.max) {
            var reader = OrderedKeyReader(part.key, from: keys.assetParts(contentID).lowerBound.count)
            try txn.set(key(copy, try reader.readInteger()), part.value)
            size += Int64(part.value.count)
        }
        return size
    }

    /// Removes content `contentID`, every part of it.
    func remove(_ contentID: String, _ txn: any BackendWriteTransaction) throws {
        try txn.clear(keys.asset(contentID))
        try txn.clearRange(keys.assetParts(contentID))
    }

    /// Whether content `contentID` is stored.
    func exists(_ contentID: String, _ txn: any BackendReadTransaction) throws -> Bool {
        try txn.get(keys.asset(contentID)) != nil
    }

    private func key(_ contentID: String, _ index: Int64) -> [UInt8] {
        index == 0 ? keys.asset(contentID) : keys.assetPart(contentID, index)
    }
}
