import Foundation

/// One line per journaled callback of a long-lived operation — `saved R1`, `changed R1`,
/// `zone Z`, `finished`, `failed <code>` — for the tests and tools that check what a journal
/// holds without delivering it (decision 0014).
package enum LongLivedEventSummary {
    /// The summary of journaled callback `bytes` of an operation of `operationClass`; `context`
    /// reads fetched assets (any database of the store).
    ///
    /// - Throws: when the bytes are not a callback of that class.
    package static func summary(operationClass: String, bytes: [UInt8], context: DatabaseContext) throws -> String {
        var reader = ByteReader(bytes)
        switch operationClass {
        case CKModifyRecordsOperation.longLivedKind:
            return describe(try CKModifyRecordsOperation.Event.decode(from: &reader, context: context))
        case CKFetchRecordZoneChangesOperation.longLivedKind:
            return describe(try CKFetchRecordZoneChangesOperation.Event.decode(from: &reader, context: context))
        default:
            return "callback"
        }
    }

    private static func describe(_ event: CKModifyRecordsOperation.Event) -> String {
        switch event {
        case .saved(let id, .success): return "saved \(id.recordName)"
        case .saved(let id, .failure(let error)): return "not saved \(id.recordName): \(error.code.name)"
        case .deleted(let id, .success): return "deleted \(id.recordName)"
        case .deleted(let id, .failure(let error)): return "not deleted \(id.recordName): \(error.code.name)"
        case .finished(let error): return error.map { "failed \($0.code.name)" } ?? "finished"
        }
    }

    private static func describe(_ event: CKFetchRecordZoneChangesOperation.Event) -> String {
        switch event {
        case .changed(let record): return "changed \(record.recordID.recordName)"
        case .deleted(let id, _): return "deleted \(id.recordName)"
        case .tokensUpdated(let zone, _, _): return "tokens \(zone.zoneName)"
        case .zoneFinished(let zone, .success): return "zone \(zone.zoneName)"
        case .zoneFinished(let zone, .failure(let error)): return "zone \(zone.zoneName) failed \(error.code.name)"
        case .finished(let error): return error.map { "failed \($0.code.name)" } ?? "finished"
        }
    }
}
