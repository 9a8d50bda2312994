import Foundation
import StratusBackend

/// The keys of one container's long-lived operation journal (decisions 0002 and 0006), under
/// the store-wide tag `0x04`:
///
/// - `04 (container) 01 (operation ID)` → the header (``JournalHeader``);
/// - `04 (container) 02 (operation ID) (sequence) (part)` → one journaled callback;
/// - `04 (container) 03 (operation ID) (part)` → the encoded request.
///
/// Headers have a sub-space of their own so that listing reads headers only. Callbacks and
/// requests are stored in parts of at most ``JournalKeys/partSize`` bytes, so a callback
/// carrying large records never exceeds what a backend must hold in one value.
struct JournalKeys: Sendable {
    let prefix: OrderedKey
    /// The journal's number: its container's or namespace's.
    let containerNumber: Int64

    static let headerTag: UInt8 = 0x01
    static let eventTag: UInt8 = 0x02
    static let requestTag: UInt8 = 0x03
    /// The largest value the journal writes (256 KiB).
    static let partSize = 256 * 1024

    init(containerNumber: Int64) {
        self.containerNumber = containerNumber
        prefix = OrderedKey([StoreLayout.journalTag]).appending(containerNumber)
    }

    func header(_ id: String) -> [UInt8] {
        prefix.appending(tag: JournalKeys.headerTag).appending(id).bytes
    }
    var headers: KeyRange { prefix.appending(tag: JournalKeys.headerTag).range }

    private func eventPrefix(_ id: String) -> OrderedKey {
        prefix.appending(tag: JournalKeys.eventTag).appending(id)
    }
    func event(_ id: String, _ sequence: Int64, part: Int64) -> [UInt8] {
        eventPrefix(id).appending(sequence).appending(part).bytes
    }
    /// Every part of every callback of `id`.
    func events(_ id: String) -> KeyRange { eventPrefix(id).range }
    /// The callbacks of `id` from `sequence` on.
    func events(_ id: String, from sequence: Int64) -> KeyRange {
        KeyRange(
            from: eventPrefix(id).appending(sequence).bytes,
            to: KeyRange.successor(ofPrefix: eventPrefix(id).bytes))
    }
    /// The sequence number and part number of a callback key of `id`.
    func eventPosition(_ key: [UInt8], of id: String) throws -> (sequence: Int64, part: Int64) {
        let start = eventPrefix(id).bytes.count
        var reader = OrderedKeyReader(key, from: start)
        return (try reader.readInteger(), try reader.readInteger())
    }

    func request(_ id: String, part: Int64) -> [UInt8] {
        prefix.appending(tag: JournalKeys.requestTag).appending(id).appending(part).bytes
    }
    func requests(_ id: String) -> KeyRange { prefix.appending(tag: JournalKeys.requestTag).appending(id).range }
}
