import Foundation

/// A database operation that can be long-lived: its request can be journaled and a proxy
/// configured from it.
protocol LongLivedOperation: CKDatabaseOperation {
    /// The operation's callbacks as the journal stores them.
    associatedtype Event: OperationEvent
    /// The name the journal stores for the operation's class.
    static var longLivedKind: String { get }
    /// Writes everything the operation's work reads (IDs, records, policies, tokens, …).
    func encodeRequest(to writer: inout ByteWriter) throws
    /// Configures a new proxy from what ``encodeRequest(to:)`` wrote.
    func decodeRequest(from reader: inout ByteReader) throws
}

extension LongLivedOperation {
    /// The journal encoding of the operation's final callback failing with `error`.
    static func failedEvent(_ error: CKError) -> [UInt8] { Event.failed(error).encoded }
}

/// The operation classes the journal knows, by ``LongLivedOperation/longLivedKind``.
enum LongLivedOperationKinds {
    /// A new, unconfigured operation of `kind`, or `nil` for a kind this version does not know.
    static func make(_ kind: String) -> (any LongLivedOperation)? {
        switch kind {
        case CKModifyRecordsOperation.longLivedKind: return CKModifyRecordsOperation()
        case CKFetchRecordsOperation.longLivedKind: return CKFetchRecordsOperation()
        case CKQueryOperation.longLivedKind: return CKQueryOperation()
        case CKFetchRecordZoneChangesOperation.longLivedKind: return CKFetchRecordZoneChangesOperation()
        case CKFetchDatabaseChangesOperation.longLivedKind: return CKFetchDatabaseChangesOperation()
        case CKModifyRecordZonesOperation.longLivedKind: return CKModifyRecordZonesOperation()
        case CKFetchRecordZonesOperation.longLivedKind: return CKFetchRecordZonesOperation()
        case CKModifySubscriptionsOperation.longLivedKind: return CKModifySubscriptionsOperation()
        case CKFetchSubscriptionsOperation.longLivedKind: return CKFetchSubscriptionsOperation()
        default: return nil
        }
    }
}
