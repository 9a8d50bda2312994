import Foundation

/// A callback of an operation that saves and deletes items (records, zones, subscriptions):
/// one result per item to save, one per item to delete, then the end. None is a cancellation
/// point: once the modify committed, every result is delivered.
enum ItemModifyEvent<ID: JournalItem, Item: JournalItem>: OperationEvent {
    /// One item to save: the item as stored, or why it was not saved.
    case saved(ID, Result<Item, CKError>)
    /// One item to delete: whether it was deleted.
    case deleted(ID, Result<Void, CKError>)
    /// The end: `nil` for success (per-item errors were delivered already).
    case finished(CKError?)

    /// Every callback of a committed modify, in order: saves, deletions, the end.
    static func events(
        saved: some Sequence<(ID, Result<Item, CKError>)>, deleted: some Sequence<(ID, Result<Void, CKError>)>
    ) -> [Self] {
        saved.map { Self.saved($0, $1) } + deleted.map { Self.deleted($0, $1) } + [.finished(nil)]
    }

    func encode(to writer: inout ByteWriter) {
        switch self {
        case .saved(let id, .success(let item)):
            writer.write(UInt8(1))
            id.write(to: &writer)
            item.write(to: &writer)
        case .saved(let id, .failure(let error)):
            writer.write(UInt8(2))
            id.write(to: &writer)
            writer.write(error: error)
        case .deleted(let id, .success):
            writer.write(UInt8(3))
            id.write(to: &writer)
        case .deleted(let id, .failure(let error)):
            writer.write(UInt8(4))
            id.write(to: &writer)
            writer.write(error: error)
        case .finished(let error):
            writer.write(UInt8(5))
            writer.write(optionalError: error)
        }
    }

    static func decode(from reader: inout ByteReader, context: DatabaseContext?) throws -> Self {
        switch try reader.readByte() {
        case 1:
            return .saved(
                try ID.read(from: &reader, context: context), .success(try Item.read(from: &reader, context: context)))
        case 2:
            return .saved(
                try ID.read(from: &reader, context: context), .failure(try reader.readError(materializingIn: context)))
        case 3: return .deleted(try ID.read(from: &reader, context: context), .success(()))
        case 4:
            return .deleted(
                try ID.read(from: &reader, context: context), .failure(try reader.readError(materializingIn: context)))
        case 5: return .finished(try reader.readOptionalError(materializingIn: context))
        default: throw EngineError.corruptValue
        }
    }

    var isCancellationPoint: Bool { false }

    var isFinal: Bool {
        if case .finished = self { return true }
        return false
    }

    static func failed(_ error: CKError) -> Self { .finished(error) }

    var logRole: OperationLogRole {
        switch self {
        case .saved(_, let result): return .item(succeeded: (try? result.get()) != nil)
        case .deleted(_, let result): return .item(succeeded: (try? result.get()) != nil)
        case .finished(let error): return .final(error)
        }
    }
}
