import Foundation
package import Stratus

/// Stratus's binary record encoding (decision 0018): what `records/changes` and
/// `records/modify` carry between a remote container and `stratusd` when both speak it, in
/// place of CloudKit Web Services JSON — the engine's own record form (``RecordWireWriter``),
/// so that neither side translates a record through JSON. JSON stays the default and the only
/// thing other clients see: a client asks with `Accept` (answers) or sends it as
/// `Content-Type` (requests) only once the server advertised it in `Accept-Post`.
///
/// Records holding assets are not carried (their fields are download URLs and upload
/// receipts, the JSON translator's work): such an answer is JSON, such a request is sent as JSON.
package enum StratusRecordEncoding {
    /// The media type.
    package static let mediaType = "application/vnd.stratus.records"
    /// The encoding's version, the first byte of every body.
    static let version: UInt8 = 1

    /// Whether a `Content-Type` or `Accept` value names the encoding.
    package static func isNamed(in header: String?) -> Bool {
        header?.contains(mediaType) ?? false
    }

    // MARK: records/changes answers

    /// A `records/changes` answer: the version, the token's bytes, `moreComing`, the zone's
    /// `clientChangeTokenData`, then each change (1 and the record, or 2, the name and the
    /// type of a deleted one). `nil` when a record holds an asset: that answer is JSON.
    package static func changesAnswer(_ batch: StoredZoneChangesBatch) -> [UInt8]? {
        changesAnswer(batch, capacity: 256 + 256 * batch.changes.count) { out, change in
            switch change {
            case .changed(let record):
                if RecordWireWriter.hasAssets(record) { return false }
                out.byte(1)
                out.record(record)
            case .deleted(let name, let type):
                deleted(name, type, to: &out)
            }
            return true
        }
    }

    /// The same answer from a batch of change-log entries, each record passed on as the entry
    /// holds it (decision 0018.8): nothing decoded, nothing encoded again.
    package static func changesAnswer(_ batch: RawZoneChangesBatch) -> [UInt8]? {
        changesAnswer(batch, capacity: 256 + 256 * batch.changes.count) { out, change in
            switch change {
            case .changed(let record):
                if record.containsAsset { return false }
                out.byte(1)
                out.record(record)
            case .deleted(let name, let type):
                deleted(name, type, to: &out)
            }
            return true
        }
    }

    /// The answer's envelope around `batch`'s changes, each written by `write` (`false`: it
    /// cannot be, the answer is JSON).
    private static func changesAnswer<Change>(
        _ batch: ZoneChangesPage<Change>, capacity: Int, write: (inout RecordWireWriter, Change) -> Bool
    ) -> [UInt8]? {
        var out = RecordWireWriter(capacity: capacity)
        out.byte(version)
        out.bytes(batch.token.data)
        out.byte(batch.moreComing ? 1 : 0)
        out.optionalBytes(batch.clientChangeTokenData)
        out.varint(batch.changes.count)
        for change in batch.changes where !write(&out, change) { return nil }
        return out.bytes
    }

    private static func deleted(_ name: String, _ type: String, to out: inout RecordWireWriter) {
        out.byte(2)
        out.string(name)
        out.string(type)
    }

    /// The token of a ``changesAnswer(_:)`` that says more are coming, read without the rest;
    /// `nil` when none are, or when the bytes do not begin as an answer.
    package static func continuationToken(of bytes: [UInt8]) -> Data? {
        var reader = RecordWireReader(bytes)
        guard (try? reader.byte()) == version, let token = try? reader.bytes(), (try? reader.byte()) == 1 else {
            return nil
        }
        return Data(token)
    }

    /// Reads a ``changesAnswer(_:)`` of `zoneID`.
    package static func readChangesAnswer(_ bytes: [UInt8], zoneID: CKRecordZone.ID) throws(RecordWireError)
        -> ZoneChangesBatch
    {
        var reader = RecordWireReader(bytes)
        try checkVersion(&reader)
        let token = CKServerChangeToken(data: Data(try reader.bytes()))
        let moreComing = try reader.byte() == 1
        let clientData = try reader.optionalBytes()
        let count = try reader.varint()
        guard count <= bytes.count else { throw RecordWireError("more changes than bytes") }
        var changes: [ZoneChangesBatch.Change] = []
        changes.reserveCapacity(count)
        for _ in 0..<count {
            switch try reader.byte() {
            case 1: changes.append(.changed(try reader.record(in: zoneID)))
            case 2:
                let name = try reader.string()
                let type = try reader.string()
                changes.append(.deleted(CKRecord.ID(recordName: name, zoneID: zoneID), type))
            default: throw RecordWireError("a change's tag is not 1 or 2")
            }
        }
        try checkEnd(reader)
        return ZoneChangesBatch(
            changes: changes, token: token, moreComing: moreComing, clientChangeTokenData: clientData)
    }

    /// Reads the version byte.
    static func checkVersion(_ reader: inout RecordWireReader) throws(RecordWireError) {
        let found = try reader.byte()
        guard found == version else {
            throw RecordWireError("version \(found) of \(mediaType) is not known (this side reads \(version))")
        }
    }

    /// Refuses bytes after the end.
    static func checkEnd(_ reader: RecordWireReader) throws(RecordWireError) {
        guard reader.isAtEnd else { throw RecordWireError("bytes follow the end of the body") }
    }
}
