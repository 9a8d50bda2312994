import Synchronization

/// The numbers of the zones this process has read, by zone row key: a hint that lets a write
/// read its records' pointers (keyed by zone number) in the same round trip as the zone's row
/// (``PreloadedRows``).
///
/// Only a hint: the zone's row, read in the same transaction, decides. When a zone was deleted
/// and made again under a new number, the hinted keys are simply not the ones the write then
/// asks for, and they are read on their own. Bounded: past ``capacity`` zones it starts over.
final class ZoneNumberHints: Sendable {
    private let numbers = Mutex<[[UInt8]: Int64]>([:])
    /// The most zones remembered.
    static let capacity = 16_384

    /// The number last seen for the zone row at `key`.
    func number(_ key: [UInt8]) -> Int64? {
        numbers.withLock { $0[key] }
    }

    /// Remembers that the zone row at `key` holds zone `number`.
    func remember(_ key: [UInt8], _ number: Int64) {
        numbers.withLock { numbers in
            guard numbers[key] != number else { return }
            if numbers.count >= Self.capacity { numbers.removeAll(keepingCapacity: true) }
            numbers[key] = number
        }
    }
}
