import Foundation
import Stratus
import StratusWebServices

/// The uploads of a modify's assets (Apple's *Uploading Assets*, decision 0012.8): one
/// `assets/upload` per zone for the upload URLs of every asset field the operations send, then
/// each file's bytes to its URL, whose receipt the field's value becomes.
struct RemoteAssetUploads {
    /// One asset in one field of one save.
    private struct Slot {
        let zone: CKRecordZone.ID
        let recordName: String
        let recordType: String
        let field: String
        let asset: CKAsset
    }

    let service: RemoteDatabaseService

    /// Uploads the assets of the fields `request`'s operations send, and answers them by
    /// file (``RemoteAssetCoder/key(_:)``). A request without assets (most) costs nothing.
    ///
    /// - Throws: `assetFileNotFound` naming the field when an asset's file cannot be read; the
    ///   server's error when an upload is refused.
    func upload(_ request: ModifyRequest) throws(CKError) -> [String: RemoteUploadedAsset] {
        let slots = Self.slots(request)
        guard !slots.isEmpty else { return [:] }
        var uploaded: [String: RemoteUploadedAsset] = [:]
        for (zone, inZone) in Dictionary(grouping: slots, by: \.zone) {
            for chunk in inZone.chunked(400) {
                let urls = try uploadURLs(Array(chunk), zone: zone)
                for (slot, url) in zip(chunk, urls) {
                    uploaded[RemoteAssetCoder.key(slot.asset)] = try send(slot, to: url)
                }
            }
        }
        return uploaded
    }

    /// Every asset of the fields the operations of `request` send, each file once.
    private static func slots(_ request: ModifyRequest) -> [Slot] {
        var slots: [Slot] = []
        var seen = Set<String>()
        for save in request.saves {
            for key in RemoteModifyPlan.sentKeys(save, policy: request.policy) {
                let value = save.record[key]
                let assets = (value as? CKAsset).map { [$0] } ?? (value as? [CKAsset]) ?? []
                for asset in assets where seen.insert(RemoteAssetCoder.key(asset)).inserted {
                    slots.append(
                        Slot(
                            zone: save.id.zoneID, recordName: save.id.recordName, recordType: save.recordType,
                            field: key, asset: asset))
                }
            }
        }
        return slots
    }

    /// The upload URLs of `slots`, in order.
    private func uploadURLs(_ slots: [Slot], zone: CKRecordZone.ID) throws(CKError) -> [String] {
        let tokens: [JSONValue] = slots.map {
            [
                "recordName": .string($0.recordName), "recordType": .string($0.recordType),
                "fieldName": .string($0.field),
            ]
        }
        let body: JSONValue = ["zoneID": service.translator.dictionary(for: zone), "tokens": .array(tokens)]
        let answer = try service.post("assets/upload", body)
        let items = try service.items("tokens", of: answer, "assets/upload")
        var urls: [String] = []
        for item in items {
            guard case .string(let url)? = item["url"] else {
                throw RemoteFailure.error(.serverResponseLost, "an assets/upload token has no url")
            }
            urls.append(url)
        }
        guard urls.count == slots.count else {
            throw RemoteFailure.error(
                .serverResponseLost, "assets/upload answered \(urls.count) tokens for \(slots.count) assets")
        }
        return urls
    }

    /// Sends the file of `slot`'s asset to `url` and answers its receipt.
    private func send(_ slot: Slot, to url: String) throws(CKError) -> RemoteUploadedAsset {
        let bytes: [UInt8]
        do {
            guard let file = slot.asset.fileURL else { throw CocoaError(.fileNoSuchFile) }
            bytes = Array(try Data(contentsOf: file))
        } catch {
            throw RemoteFailure.error(
                .assetFileNotFound,
                "asset file for field '\(slot.field)' of record '\(slot.recordName)' cannot be read at \(slot.asset.fileURL?.path ?? "(no file)")"
            )
        }
        let answer = try service.transport.upload(bytes, to: url, what: "upload URL of field '\(slot.field)'")
        guard case .object = answer["singleFile"], let receipt = answer["singleFile"] else {
            throw RemoteFailure.error(.serverResponseLost, "the asset upload answered no singleFile receipt")
        }
        var checksum: String?
        if case .string(let text)? = receipt["fileChecksum"] { checksum = text }
        return RemoteUploadedAsset(asset: slot.asset, receipt: receipt, checksum: checksum)
    }
}
