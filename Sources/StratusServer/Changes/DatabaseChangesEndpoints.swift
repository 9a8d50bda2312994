import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `changes/database` and the older `zones/changes`: which zones changed or went since a
/// token (the engine's database change log, as `CKFetchDatabaseChangesOperation`).
enum DatabaseChangesEndpoints {
    static let changesDatabase = DatabaseOperation(
        name: "changes/database", methods: [.post], writes: false,
        handle: { try await handle($0, tokenKey: "syncToken") })
    static let zonesChanges = DatabaseOperation(
        name: "zones/changes", methods: [.post], writes: false,
        handle: { try await handle($0, tokenKey: "metaSyncToken") })

    static func handle(_ call: DatabaseCall, tokenKey: String) async throws -> Response {
        let body = try call.decode(ChangesDatabaseRequest.self)
        let text = tokenKey == "syncToken" ? body.syncToken : body.metaSyncToken ?? body.syncToken
        let token = try SyncTokenText.token(text, name: tokenKey)
        let limit = try ZoneChangesEndpoints.resultsLimit(body.resultsLimit)
        let batch = try await call.withDatabase { database in
            try database.fetchDatabaseChanges(since: token, limit: limit)
        }
        let translator = call.translator
        var zones: [JSONValue] = batch.changed.map { ["zoneID": translator.dictionary(for: $0)] }
        for (zone, kind) in batch.deleted {
            var entry: [String: JSONValue] = ["zoneID": translator.dictionary(for: zone), "deleted": true]
            if kind == .purged { entry["purged"] = true }
            if kind == .encryptedDataReset { entry["encryptedDataReset"] = true }
            zones.append(.object(entry))
        }
        return call.respond([
            "zones": .array(zones), tokenKey: .string(SyncTokenText.encode(batch.token.data)),
            "moreComing": .bool(batch.moreComing),
        ])
    }
}
