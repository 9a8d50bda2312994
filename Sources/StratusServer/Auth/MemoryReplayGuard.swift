import Foundation
import Synchronization

/// The replay guard kept in this process (`authReplayGuard = memory`, decision 0013.6): the
/// key ID and `r` of every signature accepted, with its date. A replay sent to another
/// stratusd is not seen, so it is valid only when a single stratusd serves the store.
///
/// Bounded: an entry is dropped once its date lies more than a minute outside the window (a
/// replay of it fails the date check by then; the minute covers requests whose date was
/// checked a moment earlier), and when `capacity` entries are all still inside the window a
/// new signature is refused as busy rather than an entry forgotten early.
final class MemoryReplayGuard: Sendable {
    /// What recording a signature found.
    enum Outcome: Equatable {
        /// The first time: recorded.
        case first
        /// Already recorded: a replay.
        case replay
        /// Full of signatures still inside the window: not recorded.
        case full
    }

    private struct Key: Hashable {
        var keyID: String
        var r: [UInt8]
    }

    /// The most signatures held at once.
    let capacity: Int
    /// How old an accepted date may be (the signed-request window's past side).
    let window: TimeInterval
    private let entries = Mutex<[Key: Date]>([:])

    init(capacity: Int, window: TimeInterval) {
        self.capacity = max(1, capacity)
        self.window = window
    }

    /// Records that `keyID` signed with nonce half `r` at `date`, checked at `now`.
    func record(keyID: String, r: [UInt8], date: Date, now: Date) -> Outcome {
        let key = Key(keyID: keyID, r: r)
        let cutoff = cutoff(now)
        let capacity = capacity
        return entries.withLock { entries in
            if entries[key] != nil { return .replay }
            if entries.count >= capacity { entries = entries.filter { $0.value >= cutoff } }
            guard entries.count < capacity else { return .full }
            entries[key] = date
            return .first
        }
    }

    /// Drops the entries no accepted date can match any more (run once a minute).
    func evict(now: Date) {
        let cutoff = cutoff(now)
        entries.withLock { entries in entries = entries.filter { $0.value >= cutoff } }
    }

    /// How many signatures are held.
    var count: Int { entries.withLock { $0.count } }

    /// Entries dated before this are outside the window by more than a minute.
    private func cutoff(_ now: Date) -> Date {
        now.addingTimeInterval(-window - 60)
    }
}
