import Foundation
import StratusBackend

/// Asset content stored before any record holds it (stratusd's uploads, decision 0012.8).
///
/// Staged content is written under the database's asset key like any asset's, plus a marker
/// saying no record holds it yet and since when, and an entry in the store-wide staging queue
/// (`09`) that ``Engine/purgeStagedAssets(stagedBefore:limit:)`` scans. A save whose asset
/// names staged content (``CKAsset/init(stagedContentID:size:)``) adopts it in its transaction:
/// the marker and queue entry go, the content stays under its ID.
extension DatabaseContext {
    /// Stores `bytes` as staged content of this database and returns its content ID.
    ///
    /// - Parameters:
    ///   - label: kept at the front of the content ID, and by every copy the engine makes of
    ///     it (`label.UUID`); the server keeps the content's checksum there. It must not
    ///     contain `.`; empty for none.
    ///   - now: the staging time the purge compares with.
    package func stageAsset(_ bytes: [UInt8], label: String = "", now: Date = Date()) throws -> String {
        guard !label.contains(".") else {
            throw CKError.make(.invalidArguments, "a staged asset's label cannot contain '.'")
        }
        let contentID = StagedAssetID.make(label: label)
        let stagedAt = StagedAssetID.milliseconds(now)
        try engine.writeLeavingGeneration { txn in
            try assetParts.write(bytes, as: contentID, txn)
            var marker = ByteWriter(capacity: 8)
            marker.write(stagedAt)
            try txn.set(keys.stagedAsset(contentID), marker.bytes)
            try txn.set(queueKey(stagedAt: stagedAt, contentID: contentID), [])
        }
        return contentID
    }

    /// The stored content `contentID` of this database (staged or held by a record); `nil` when
    /// there is none.
    package func assetContent(_ contentID: String) throws -> [UInt8]? {
        try engine.read { txn in try assetParts.read(contentID, txn) }
    }

    /// Part `index` (from 0) of stored content `contentID` and whether another part may follow;
    /// `nil` when there is no such part. Parts are at most 512 KiB (decision 0015), so content
    /// can be streamed one short read at a time.
    package func assetContentPart(_ contentID: String, index: Int64) throws -> (bytes: [UInt8], more: Bool)? {
        try engine.read { txn in try assetParts.part(index, of: contentID, txn) }
    }

    /// Reads and writes this database's asset content (decision 0015).
    var assetParts: AssetParts { AssetParts(keys: keys) }

    /// Whether `contentID` is staged content no record holds yet.
    package func isStagedAsset(_ contentID: String) throws -> Bool {
        try engine.read { txn in try txn.get(keys.stagedAsset(contentID)) != nil }
    }

    /// What a save does with `asset`, an asset the saved record does not hold yet: staged
    /// content is adopted (its marker and queue entry cleared, the ID kept); labelled content
    /// held by another record is copied under a new ID with the same label. `nil` for anything
    /// else, which the save handles as before (`storeAssets`).
    func adoptStagedContent(_ asset: AssetValue, _ txn: any BackendWriteTransaction) throws -> AssetValue? {
        guard !asset.contentID.isEmpty else { return nil }
        if let marker = try txn.get(keys.stagedAsset(asset.contentID)) {
            var reader = ByteReader(marker)
            let stagedAt = try reader.readInt64()
            try txn.clear(keys.stagedAsset(asset.contentID))
            try txn.clear(queueKey(stagedAt: stagedAt, contentID: asset.contentID))
            return AssetValue(contentID: asset.contentID, size: asset.size, pendingFile: nil)
        }
        guard let label = StagedAssetID.label(of: asset.contentID) else { return nil }
        let copy = StagedAssetID.make(label: label)
        guard let size = try assetParts.copy(asset.contentID, as: copy, txn) else { return nil }
        return AssetValue(contentID: copy, size: size, pendingFile: nil)
    }

    /// This database's entry in the staging queue.
    func queueKey(stagedAt: Int64, contentID: String) -> [UInt8] {
        OrderedKey([StoreLayout.stagedAssetTag]).appending(stagedAt).appending(containerNumber)
            .appending(Int64(scope.rawValue)).appending(contentID).bytes
    }
}

/// Content IDs of staged assets: `label.UUID`, or a bare UUID without a label.
enum StagedAssetID {
    static func make(label: String) -> String {
        label.isEmpty ? UUID().uuidString : label + "." + UUID().uuidString
    }

    /// The label of a content ID made by ``make(label:)``; `nil` when it has none.
    static func label(of contentID: String) -> String? {
        guard let dot = contentID.lastIndex(of: "."), dot != contentID.startIndex else { return nil }
        return String(contentID[..<dot])
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
