import Foundation

extension CKFetchSubscriptionsOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchSubscriptionsOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(strings: subscriptionIDs)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        subscriptionIDs = try reader.readStrings()
    }

    /// A callback of a fetch-subscriptions operation.
    typealias Event = ItemFetchEvent<CKSubscription.ID, CKSubscription>
}
