import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `assets/upload` (Apple's *Uploading Assets*, decision 0012.8): one upload URL per token,
/// signed for this database, zone, record type and field, valid 15 minutes. The bytes go to
/// that URL (``AssetRoutes``), whose receipt a `records/modify` then sets as the field's value.
enum AssetUpload {
    static let operation = DatabaseOperation(name: "assets/upload", methods: [.post], writes: true, handle: handle)

    /// How long an upload URL is valid.
    static let urlLifetime: Int64 = 15 * 60
    /// The most tokens one request may ask for (the engine's item limit, decision 0012.8).
    static let maximumTokens = 400

    /// The request body.
    struct Body: Decodable, Sendable {
        var zoneID: WSZoneID?
        var tokens: [Token]
    }

    /// One asset field to upload to.
    struct Token: Decodable, Sendable {
        var recordName: String?
        var recordType: String
        var fieldName: String
    }

    static func handle(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(Body.self)
        guard (1...maximumTokens).contains(body.tokens.count) else {
            throw ServerError.badRequest(
                "assets/upload takes 1 to \(maximumTokens) tokens, not \(body.tokens.count)",
                stratusErrorCode: body.tokens.isEmpty ? "invalidArguments" : "limitExceeded")
        }
        guard let key = call.server.assetKeys.current else { throw AssetRoutes.keyUnavailable }
        let zone = body.zoneID.map(call.translator.zoneID(from:)) ?? CKRecordZone.ID.default
        let database = AssetDatabase(call)
        let expiry = Int64(Date().timeIntervalSince1970) + urlLifetime
        var tokens: [JSONValue] = []
        for (index, token) in body.tokens.enumerated() {
            guard !token.recordType.isEmpty, !token.fieldName.isEmpty else {
                throw ServerError.badRequest("tokens[\(index)] needs a recordType and a fieldName")
            }
            let recordName = token.recordName ?? UUID().uuidString
            let ticket = AssetTicket(
                purpose: .upload,
                fields: database.fields + [
                    zone.zoneName, zone.ownerName, token.recordType, token.fieldName, recordName,
                ],
                expiry: expiry)
            let url = "\(call.origin)/assets/1/\(ticket.encodedFields)?e=\(expiry)&s=\(ticket.signature(key))"
            tokens.append([
                "recordName": .string(recordName), "recordType": .string(token.recordType),
                "fieldName": .string(token.fieldName), "url": .string(url),
            ])
        }
        return call.respond(["tokens": .array(tokens)])
    }
}
