import Foundation

/// The stored content behind an asset, for stratusd (decision 0012.8).
extension CKAsset {
    /// An asset naming content already in the database it is saved to, such as content staged
    /// by ``DatabaseContext/stageAsset(_:label:now:)``: the save adopts staged content, and
    /// copies content another record holds. It has no local file.
    package convenience init(stagedContentID contentID: String, size: Int64) {
        self.init(stored: AssetValue(contentID: contentID, size: size, pendingFile: nil))
    }

    /// The ID of the stored content this asset was fetched from or names; `nil` for an asset
    /// made from a local file.
    package var contentID: String? { storedContent?.contentID }

    /// The size in bytes of the stored content; `nil` for an asset made from a local file.
    package var contentSize: Int64? { storedContent?.size }
}
