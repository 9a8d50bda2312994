public import Foundation

/// A file attached to a record field. Its content is stored by the engine, outside the
/// record's 1 MB limit; a fetched asset's `fileURL` points at a local copy of the content.
public final class CKAsset: NSObject, CKRecordValueProtocol, @unchecked Sendable {
    /// The local file holding the asset's content. For a fetched asset, `nil` when its content
    /// could not be copied to a local file (the store lacks it, or the asset cache directory
    /// cannot be written); saving the record again keeps the stored content as it is.
    public let fileURL: URL?
    /// The stored content this asset was fetched from; `nil` for an asset made by the app.
    let storedContent: AssetValue?

    /// An asset whose content is the file at `fileURL`, read when the record is saved.
    public init(fileURL: URL) {
        self.fileURL = fileURL
        self.storedContent = nil
    }

    /// An asset fetched from the store, whose content has been copied to `fileURL`.
    init(stored: AssetValue) {
        self.fileURL = stored.pendingFile
        var content = stored
        content.pendingFile = nil
        self.storedContent = content
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKAsset else { return false }
        return fileURL == other.fileURL
    }

    public override var hash: Int { fileURL?.hashValue ?? 0 }

    public override var description: String { "<CKAsset: \(fileURL?.path ?? "nil")>" }
}
