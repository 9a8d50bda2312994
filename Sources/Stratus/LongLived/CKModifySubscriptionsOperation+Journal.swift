import Foundation

extension CKModifySubscriptionsOperation: LongLivedOperation {
    static var longLivedKind: String { "CKModifySubscriptionsOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        let subscriptions = subscriptionsToSave
        writer.write(bool: subscriptions != nil)
        if let subscriptions {
            writer.writeVarint(subscriptions.count)
            for subscription in subscriptions { writer.write(subscription: subscription) }
        }
        writer.write(strings: subscriptionIDsToDelete)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        if try reader.readBool() {
            subscriptionsToSave = try (0..<reader.readCount()).map { _ in try reader.readSubscription() }
        }
        subscriptionIDsToDelete = try reader.readStrings()
    }

    /// A callback of a modify-subscriptions operation.
    typealias Event = ItemModifyEvent<CKSubscription.ID, CKSubscription>
}
