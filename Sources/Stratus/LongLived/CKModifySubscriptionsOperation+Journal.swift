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

    /// A callback of a modify-subscriptions operation. None is a cancellation point.
    enum Event: OperationEvent {
        /// One subscription to save: the subscription as stored, or why it was not saved.
        case saved(CKSubscription.ID, Result<CKSubscription, CKError>)
        /// One subscription to delete: whether it was deleted.
        case deleted(CKSubscription.ID, Result<Void, CKError>)
        /// The end: `nil` for success (per-subscription errors were delivered already).
        case finished(CKError?)

        /// Every callback of a committed modify, in order.
        static func events(of outcome: SubscriptionModifyOutcome) -> [Event] {
            outcome.saved.map { Event.saved($0, $1) } + outcome.deleted.map { Event.deleted($0, $1) }
                + [.finished(nil)]
        }

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .saved(let id, .success(let subscription)):
                writer.write(UInt8(1))
                writer.write(id)
                writer.write(subscription: subscription)
            case .saved(let id, .failure(let error)):
                writer.write(UInt8(2))
                writer.write(id)
                writer.write(error: error)
            case .deleted(let id, .success):
                writer.write(UInt8(3))
                writer.write(id)
            case .deleted(let id, .failure(let error)):
                writer.write(UInt8(4))
                writer.write(id)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(5))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext) throws -> Event {
            switch try reader.readByte() {
            case 1: return .saved(try reader.readString(), .success(try reader.readSubscription()))
            case 2: return .saved(try reader.readString(), .failure(try reader.readError(materializingIn: context)))
            case 3: return .deleted(try reader.readString(), .success(()))
            case 4: return .deleted(try reader.readString(), .failure(try reader.readError(materializingIn: context)))
            case 5: return .finished(try reader.readOptionalError(materializingIn: context))
            default: throw EngineError.corruptValue
            }
        }

        var isCancellationPoint: Bool { false }

        var isFinal: Bool {
            if case .finished = self { return true }
            return false
        }

        static func failed(_ error: CKError) -> Event { .finished(error) }
    }
}
