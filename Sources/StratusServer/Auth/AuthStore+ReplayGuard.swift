import Foundation
import StratusBackend

/// The replay guard of server-to-server requests (decision 0013.6): `06 07 (minute, key ID, r)`,
/// the minute of the request's date as 8 big-endian bytes, so old minutes are one range to clear.
extension AuthStore {
    /// Records that key `keyID` signed with nonce half `r` in the minute of `date`; `false`
    /// when that was already recorded: the request is a replay (or a flipped copy of one).
    package func recordSignature(keyID: String, r: [UInt8], date: Date) throws -> Bool {
        let key = Self.replayGuardPrefix + Self.minuteBytes(of: date) + Array(keyID.utf8) + r
        return try data.write { writer in
            if try writer.get(key) != nil { return false }
            try writer.set(key, [])
            return true
        }
    }

    /// Clears the entries of every minute that ended at or before `cutoff`.
    package func purgeReplayGuard(olderThan cutoff: Date) throws {
        let range = KeyRange(from: Self.replayGuardPrefix, to: Self.replayGuardPrefix + Self.minuteBytes(of: cutoff))
        try data.write { writer in try writer.clearRange(range) }
    }

    /// How many signatures the stored guard holds (for tests and tools).
    package func replayGuardEntryCount() throws -> Int {
        try data.read { reader in
            try reader.scan(KeyRange(prefix: Self.replayGuardPrefix), limit: Int.max).count
        }
    }

    /// The minutes since 1970 of `date`, 8 bytes big-endian (0 before 1970).
    static func minuteBytes(of date: Date) -> [UInt8] {
        let minute = UInt64(max(0, (date.timeIntervalSince1970 / 60).rounded(.down)))
        return (0..<8).reversed().map { UInt8(truncatingIfNeeded: minute >> (8 * UInt64($0))) }
    }
}
