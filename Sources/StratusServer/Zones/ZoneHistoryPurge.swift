import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `stratus/zones/purgeChangeHistory` (decision 0021): `CKDatabase.purgeChangeHistory(in:)`
/// over HTTP. The engine purges (decision 0003: tombstones dropped, every earlier change token
/// `changeTokenExpired`); this endpoint decides only who may ask.
///
/// - private database: the signed-in user, for a zone of their own (a zone ID naming another
///   owner is 403 `ACCESS_DENIED`);
/// - public database: a server-to-server key only (a user is 403, an anonymous caller 421);
/// - shared database: nobody — a shared zone's history is its owner's, purged from the owner's
///   private database (403).
enum ZoneHistoryPurge {
    static let operation = DatabaseOperation(
        name: "stratus/zones/purgeChangeHistory", methods: [.post], writes: true, handle: handle)

    /// `{"zoneID": {…}}` → `{"zoneID": {…}, "purged": true}`; 404 `ZONE_NOT_FOUND` for a zone
    /// the database does not have.
    static func handle(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(ZoneHistoryPurgeRequest.self)
        let zoneID = call.translator.zoneID(from: body.zoneID)
        try authorize(call, zoneID)
        try await call.withDatabase { try $0.purgeChangeHistory(zoneID) }
        return call.respond(["zoneID": call.translator.dictionary(for: zoneID), "purged": true])
    }

    /// Refuses every caller but the zone's owner (or, in the public database, a server key).
    static func authorize(_ call: DatabaseCall, _ zoneID: CKRecordZone.ID) throws(ServerError) {
        switch call.path.scope {
        case .private:
            guard zoneID.ownerName == CKCurrentUserDefaultName else {
                throw denied("only the owner of a zone purges its change history; this zone belongs to another user")
            }
        case .public:
            guard call.caller.role == .admin else {
                throw denied(
                    "the public database's change history is purged with a server-to-server key, not a user's session")
            }
        default:
            throw denied(
                "a shared zone's change history is its owner's: the owner purges it in their private database")
        }
    }

    private static func denied(_ reason: String) -> ServerError {
        ServerError(.forbidden, "ACCESS_DENIED", reason, stratusErrorCode: "permissionFailure")
    }
}

/// The body of `stratus/zones/purgeChangeHistory`.
struct ZoneHistoryPurgeRequest: Decodable, Sendable {
    var zoneID: WSZoneID
}
