import Foundation

extension CKFetchSubscriptionsOperation: LongLivedOperation {
    static var longLivedKind: String { "CKFetchSubscriptionsOperation" }

    func encodeRequest(to writer: inout ByteWriter) throws {
        writer.write(strings: subscriptionIDs)
    }

    func decodeRequest(from reader: inout ByteReader) throws {
        subscriptionIDs = try reader.readStrings()
    }

    /// A callback of a fetch-subscriptions operation. None is a cancellation point.
    enum Event: OperationEvent {
        /// One subscription, or why it could not be fetched.
        case subscription(CKSubscription.ID, Result<CKSubscription, CKError>)
        /// The end: `nil` for success (per-subscription errors were delivered already).
        case finished(CKError?)

        func encode(to writer: inout ByteWriter) {
            switch self {
            case .subscription(let id, .success(let subscription)):
                writer.write(UInt8(1))
                writer.write(id)
                writer.write(subscription: subscription)
            case .subscription(let id, .failure(let error)):
                writer.write(UInt8(2))
                writer.write(id)
                writer.write(error: error)
            case .finished(let error):
                writer.write(UInt8(3))
                writer.write(optionalError: error)
            }
        }

        static func decode(from reader: inout ByteReader, context: DatabaseContext) throws -> Event {
            switch try reader.readByte() {
            case 1: return .subscription(try reader.readString(), .success(try reader.readSubscription()))
            case 2:
                return .subscription(try reader.readString(), .failure(try reader.readError(materializingIn: context)))
            case 3: return .finished(try reader.readOptionalError(materializingIn: context))
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
