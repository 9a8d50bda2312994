import Foundation

/// The stored content behind an asset, for stratusd (decision 0012.8).
extension CKAsset {
    /// An asset naming content staged in the database it is saved to by
    /// ``DatabaseContext/stageAsset(_:label:now:)`` (an upload receipt's): the save adopts the
    /// staged content, once. A save that finds it no longer staged (adopted by an earlier save,
    /// or named twice in one request) fails with `invalidArguments` instead of copying it, so
    /// that one upload cannot be multiplied. It has no local file.
    package convenience init(stagedContentID contentID: String, size: Int64) {
        self.init(stored: AssetValue(contentID: contentID, size: size, pendingFile: nil, stagedOnly: true))
    }

    /// The ID of the stored content this asset was fetched from or names; `nil` for an asset
    /// made from a local file.
    package var contentID: String? { storedContent?.contentID }

    /// The size in bytes of the stored content; `nil` for an asset made from a local file.
    package var contentSize: Int64? { storedContent?.size }
}
