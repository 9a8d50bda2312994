import Stratus
import StratusWebServices

/// An asset of a save whose content is on the server: the receipt its `records/modify`
/// operation sets as the field's value, and the checksum the server reports it by.
struct RemoteUploadedAsset: Sendable {
    /// The app's asset.
    let asset: CKAsset
    /// The upload's answer `{fileChecksum, size, receipt}`.
    let receipt: JSONValue
    /// The content's SHA-256, base64.
    let checksum: String?
}
