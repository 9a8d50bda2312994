import Foundation
import Stratus
import StratusWebServices

/// One database of a remote container: the engine seam (decision 0016.1) over `stratusd`'s
/// CloudKit Web Services. Each call is one request (a fetch across zones, one per zone); the
/// translation both ways is `StratusWebServices`', the same tables the server uses, and every
/// semantic — tokens, cursors, conflicts, atomic zones — is the server's engine's.
struct RemoteDatabaseService: DatabaseService {
    let scope: CKDatabase.Scope
    let userRecordName: String
    let transport: RemoteTransport
    /// Record dictionaries both ways, for this user: the server writes the caller's own zones
    /// with the user's record name as owner, which reads back as `CKCurrentUserDefaultName` —
    /// except in the public database, whose zones belong to nobody (the server's translator
    /// there has no caller either).
    let translator: WSRecordTranslator
    /// The next page of zone changes, asked for ahead (decision 0018).
    let pipeline = RemoteChangesPipeline()

    /// The service of `scope` on `transport`'s server, for the user the credentials name.
    init(scope: CKDatabase.Scope, transport: RemoteTransport, userRecordName: String) {
        self.scope = scope
        self.transport = transport
        self.userRecordName = userRecordName
        self.translator = WSRecordTranslator(
            callerRecordName: scope == .public ? nil : userRecordName, assets: RemoteAssetCoder(transport: transport))
    }

    /// The server's journal of this user's long-lived operations (decision 0016.6).
    var remoteJournal: (any RemoteLongLivedJournal)? { RemoteJournal(transport: transport) }

    /// `operation` on this database, retried by `retry`.
    func post(
        _ operation: String, _ body: JSONValue, headers: [(String, String)] = [], retry: RemoteRetry = .idempotent
    )
        throws(CKError) -> JSONValue
    {
        try transport.post(scope, operation, body, headers: headers, retry: retry)
    }

    /// The array under `key` of an answer.
    func items(_ key: String, of answer: JSONValue, _ operation: String) throws(CKError) -> [JSONValue] {
        guard case .array(let items) = answer[key] else {
            throw RemoteFailure.error(.serverResponseLost, "the answer to \(operation) has no '\(key)' array")
        }
        return items
    }

    /// Whether an answer's item is an error dictionary rather than the item.
    func isError(_ item: JSONValue) -> Bool {
        item["serverErrorCode"] != nil
    }

    /// `item`'s error, read with the same table the server wrote it with.
    func itemError(_ item: JSONValue) -> CKError {
        WSErrorReader.error(from: item, status: nil, translator: translator)
    }

    /// A malformed answer: the server's fault, reported as a lost response.
    func malformed(_ operation: String, _ problem: some Error) -> CKError {
        RemoteFailure.error(.serverResponseLost, "the answer to \(operation) cannot be read: \(problem)")
    }

    /// The zone ID of a zone ID dictionary in an answer to `operation`.
    func zoneID(_ value: JSONValue?, _ operation: String) throws(CKError) -> CKRecordZone.ID {
        guard let value, let dictionary = try? JSONValueDecoder().decode(WSZoneID.self, from: value) else {
            throw RemoteFailure.error(.serverResponseLost, "the answer to \(operation) has an item without a zoneID")
        }
        return translator.zoneID(from: dictionary)
    }

    /// Token or cursor bytes of a `syncToken` / `continuationMarker`.
    func tokenData(_ value: JSONValue?, _ name: String, _ operation: String) throws(CKError) -> Data {
        guard case .string(let text) = value, let data = SyncTokenText.data(text) else {
            throw RemoteFailure.error(.serverResponseLost, "the answer to \(operation) has no valid '\(name)'")
        }
        return data
    }
}
