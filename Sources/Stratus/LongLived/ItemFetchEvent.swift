import Foundation

/// A callback of an operation that fetches items by ID (records, zones, subscriptions): one
/// result per item, then the end.
enum ItemFetchEvent<ID: JournalItem, Item: JournalItem>: OperationEvent {
    /// One requested item, or why it could not be fetched.
    case item(ID, Result<Item, CKError>)
    /// The end: `nil` for success (per-item errors were delivered already).
    case finished(CKError?)

    func encode(to writer: inout ByteWriter) {
        switch self {
        case .item(let id, .success(let item)):
            writer.write(UInt8(1))
            id.write(to: &writer)
            item.write(to: &writer)
        case .item(let id, .failure(let error)):
            writer.write(UInt8(2))
            id.write(to: &writer)
            writer.write(error: error)
        case .finished(let error):
            writer.write(UInt8(3))
            writer.write(optionalError: error)
        }
    }

    static func decode(from reader: inout ByteReader, context: DatabaseContext?) throws -> Self {
        switch try reader.readByte() {
        case 1:
            return .item(
                try ID.read(from: &reader, context: context), .success(try Item.read(from: &reader, context: context)))
        case 2:
            return .item(
                try ID.read(from: &reader, context: context), .failure(try reader.readError(materializingIn: context)))
        case 3: return .finished(try reader.readOptionalError(materializingIn: context))
        default: throw EngineError.corruptValue
        }
    }

    /// Records are fetched in batches, and a cancelled fetch stops delivering between them;
    /// zones and subscriptions come in one answer that is delivered whole.
    var isCancellationPoint: Bool {
        guard Item.self == CKRecord.self else { return false }
        if case .finished(.some) = self { return false }
        return true
    }

    var isFinal: Bool {
        if case .finished = self { return true }
        return false
    }

    static func failed(_ error: CKError) -> Self { .finished(error) }

    var logRole: OperationLogRole {
        switch self {
        case .item(_, let result): return .item(succeeded: (try? result.get()) != nil)
        case .finished(let error): return .final(error)
        }
    }
}

/// What a fetch-by-ID operation's deprecated final block reports, gathered from its per-item
/// callbacks: the fetched items by ID, and `partialFailure` when some failed.
struct ItemFetchDelivery<ID: Hashable, Item> {
    /// The items fetched so far.
    private(set) var fetched: [ID: Item] = [:]
    private var partial: [AnyHashable: CKError] = [:]
    /// The per-item results delivered so far.
    private(set) var count = 0

    /// Notes one per-item result.
    mutating func add(_ id: ID, _ result: Result<Item, CKError>) {
        count += 1
        switch result {
        case .success(let item): fetched[id] = item
        case .failure(let error): partial[id] = error
        }
    }

    /// `partialFailure` with the per-item errors under `CKPartialErrorsByItemIDKey`, or `nil`
    /// when every item was fetched; `items` names them in the message ("record zones").
    func partialFailure(fetching items: String) -> CKError? {
        guard !partial.isEmpty else { return nil }
        return .make(
            .partialFailure, "Failed to fetch some \(items) (\(partial.count) of \(count))",
            userInfo: [CKPartialErrorsByItemIDKey: partial])
    }
}
