import Foundation
import Stratus
import StratusWebServices

/// `purgeChangeHistory(in:)` on a remote database (decision 0021): the server's engine purges,
/// for the zone's owner or, in the public database, a server-to-server key.
extension RemoteDatabaseService {
    /// Asks the server to purge `zoneID`'s change history, once: a purge is not retried, as a
    /// zone modify is not, since a second one after a lost answer would also expire the tokens
    /// issued in between.
    ///
    /// - Throws: the server's `CKError`: `zoneNotFound`, `permissionFailure` for a zone or a
    ///   database the credentials may not purge, `notAuthenticated` without a user.
    func purgeChangeHistory(_ zoneID: CKRecordZone.ID) throws {
        // A page of changes asked for ahead before the purge may be stale after it.
        defer { RemoteChangesPipeline.countWrite() }
        let body: JSONValue = ["zoneID": translator.dictionary(for: zoneID)]
        let answer = try post("stratus/zones/purgeChangeHistory", body, retry: .once)
        guard answer["purged"] == .bool(true) else {
            throw RemoteFailure.error(
                .serverResponseLost, "the answer to stratus/zones/purgeChangeHistory does not say the zone was purged")
        }
    }
}
