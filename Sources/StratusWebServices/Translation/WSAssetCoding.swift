package import Stratus

/// What the translator needs to read and write ASSET fields (decision 0012.8): the server
/// checks an upload's receipt and writes a fetched asset's dictionary, with its download URL.
package protocol WSAssetCoding: Sendable {
    /// The asset an ASSET field's dictionary `{receipt, …}` sets.
    ///
    /// - Throws: ``WSValueProblem`` when there is no receipt, or it is not this server's, was
    ///   made for another database, or has expired.
    func asset(from value: JSONValue) throws(WSValueProblem) -> CKAsset

    /// The dictionary `{fileChecksum, size, downloadURL}` of a fetched asset; `nil` for one
    /// without stored content.
    func dictionary(for asset: CKAsset) -> JSONValue?
}
