import Foundation

/// One callback of an operation (or its final one), as it is journaled and delivered.
///
/// Each concrete operation has an event type; its run delivers events to the operation's
/// blocks, journals them first when the operation is long-lived, and replays them from the
/// journal for a proxy.
protocol OperationEvent {
    /// Writes the event for the journal.
    func encode(to writer: inout ByteWriter)
    /// Reads an event written by ``encode(to:)``; `context` re-materializes fetched assets.
    static func decode(from reader: inout ByteReader, context: DatabaseContext?) throws -> Self
    /// Whether the operation checks for cancellation before delivering this event (where a
    /// cancelled operation stops delivering, as it did before journaling existed).
    var isCancellationPoint: Bool { get }
    /// Whether this is the operation's final callback.
    var isFinal: Bool { get }
    /// The final callback of an operation that failed with `error`.
    static func failed(_ error: CKError) -> Self
    /// What the event counts as in the operation's end line in the log (`Docs/Logging.md`).
    var logRole: OperationLogRole { get }
}

/// What one callback counts as in an operation's end line in the log: the line gives how many
/// items were delivered, how many of them failed, and the final error.
enum OperationLogRole {
    /// An item delivered (a record, zone, subscription or change), that succeeded or failed.
    case item(succeeded: Bool)
    /// A per-zone failure (a zone-changes fetch): counted as failed, not as an item.
    case zoneFailed
    /// Not an item: a token update, a zone's end.
    case progress
    /// The final callback, with the operation's error if it failed.
    case final(CKError?)
}

extension OperationEvent {
    /// The event's journal bytes.
    var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(to: &writer)
        return writer.bytes
    }
}

/// What one step of an operation's work produced.
enum OperationBatch<Event: OperationEvent> {
    /// Events to journal (if long-lived), then deliver.
    case deliver([Event])
    /// Events the work already journaled in its own transaction (a modify), to deliver.
    case journaled([Event])
}
