import StratusBackend
import StratusTestSupport

/// Broken backends that keep the key-value contract for most keys but lose CloudKit semantics,
/// by corrupting the engine's keys (laid out in `Docs/decisions/0002-key-layout.md`): the
/// suite's engine-level cases must catch each.
enum EngineKeys {
    /// `[0x03] + (container number) + (scope)`: one tag byte and two 9-byte integers.
    static let databasePrefixLength = 1 + 9 + 9
    static let zoneTag: UInt8 = 0x11
    static let recordTag: UInt8 = 0x20
    static let changeTag: UInt8 = 0x22
    static let valueIndexTag: UInt8 = 0x24

    /// The sub-space tag of a database key, if `key` is one.
    static func subspace(_ key: [UInt8]) -> UInt8? {
        guard key.count > databasePrefixLength, key[0] == 0x03 else { return nil }
        return key[databasePrefixLength]
    }

    /// Whether a change-log value records a deletion (`ChangeEntry`: varint length, name,
    /// then 1 and the type for a deletion, 0 and the record for a live one).
    static func isDeletionEntry(_ value: [UInt8]) -> Bool {
        var length = 0
        var shift = 0
        var index = 0
        while index < value.count {
            let byte = value[index]
            length |= Int(byte & 0x7F) << shift
            index += 1
            if byte < 0x80 { break }
            shift += 7
        }
        let flag = index + length
        return flag < value.count && value[flag] == 1
    }
}

extension BrokenBackend {
    /// Every broken backend of the engine's semantics.
    static let engineLevel: [BrokenBackend] = [dropsTombstones, reusesChangePositions, ignoresCursorPosition]

    /// Deletions never reach the change log: the tombstone entry is silently not written.
    static let dropsTombstones = BrokenBackend("drops-tombstones", caughtBy: "changeTokens.deletionReportedOnce") {
        var hooks = BackendHooks()
        hooks.set = { transaction, key, value in
            if EngineKeys.subspace(key) == EngineKeys.changeTag && EngineKeys.isDeletionEntry(value) { return }
            try transaction.set(key, value)
        }
        return hooks
    }

    /// Every zone row is written back with its next change position one lower, so the next
    /// change reuses the position of the previous one (and overwrites its change-log entry).
    static let reusesChangePositions = BrokenBackend(
        "reuses-change-positions", caughtBy: "changeTokens.modifiedRecordOnceInLatestState"
    ) {
        var hooks = BackendHooks()
        hooks.set = { transaction, key, value in
            // ZoneRow: version (1), number (8), capabilities (8), encryption scope (1), next
            // position (8, little-endian) at offset 18.
            guard EngineKeys.subspace(key) == EngineKeys.zoneTag, value.count >= 26 else {
                try transaction.set(key, value)
                return
            }
            var position: Int64 = 0
            for i in (18..<26).reversed() { position = position << 8 | Int64(value[i]) }
            var broken = value
            if position > 2 {
                let reused = UInt64(position - 1)
                for i in 0..<8 { broken[18 + i] = UInt8(truncatingIfNeeded: reused >> UInt64(8 * i)) }
            }
            try transaction.set(key, broken)
        }
        return hooks
    }

    /// Scans of query walks start at the beginning of the zone's record pointers (unsorted
    /// queries, decision 0008) or of the field's index, ignoring the position a cursor asked to
    /// continue from.
    static let ignoresCursorPosition = BrokenBackend(
        "ignores-cursor-position", caughtBy: "cursors.reachEveryMatchOnce"
    ) {
        var hooks = BackendHooks()
        hooks.scan = { transaction, range, limit, reverse in
            var range = range
            switch EngineKeys.subspace(range.lowerBound) {
            case EngineKeys.recordTag?:
                // prefix, tag, zone number
                range.lowerBound = Array(range.lowerBound.prefix(EngineKeys.databasePrefixLength + 1 + 9))
            case EngineKeys.valueIndexTag?:
                // prefix, tag, zone number, type number, field number
                range.lowerBound = Array(range.lowerBound.prefix(EngineKeys.databasePrefixLength + 1 + 9 + 9 + 9))
            default:
                break
            }
            return try transaction.scan(range, limit: limit, reverse: reverse)
        }
        return hooks
    }
}
