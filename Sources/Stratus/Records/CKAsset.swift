public import Foundation

/// A file attached to a record field. Its content is stored by the engine, outside the
/// record's 1 MB limit; a fetched asset's `fileURL` points at a local copy of the content.
public final class CKAsset: NSObject, NSSecureCoding, CKRecordValueProtocol, @unchecked Sendable {
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

    /// Assets decode only as `CKAsset`.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the asset with `coder`: its file's location and, for a fetched asset, which
    /// stored content it was fetched from (so a decoded asset saved again keeps that content).
    public func encode(with coder: NSCoder) {
        coder.encode(fileURL.map { $0 as NSURL }, forKey: "FileURL")
        if let storedContent {
            coder.encode(storedContent.contentID as NSString, forKey: "ContentID")
            coder.encode(storedContent.size, forKey: "Size")
        }
    }

    /// Re-creates an asset archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        // Absent keys are tested first: swift-corelibs-foundation's secure decoding of a
        // missing object fails the whole unarchiving.
        fileURL =
            coder.containsValue(forKey: "FileURL")
            ? coder.decodeObject(of: NSURL.self, forKey: "FileURL").map { $0 as URL } : nil
        if coder.containsValue(forKey: "ContentID"),
            let contentID = coder.decodeObject(of: NSString.self, forKey: "ContentID")
        {
            storedContent = AssetValue(contentID: contentID as String, size: coder.decodeInt64(forKey: "Size"))
        } else {
            storedContent = nil
            // An asset has a file, stored content, or both: an archive with neither is not one.
            if fileURL == nil { return nil }
        }
    }
}
