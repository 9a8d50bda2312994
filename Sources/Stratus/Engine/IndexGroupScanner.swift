import StratusBackend

/// Walks one zone's value index group by group (entries with equal encoded values). An entry's
/// key ends with the record name; its value is the position of the record's change-log entry.
struct IndexGroupScanner {
    let zoneID: CKRecordZone.ID
    let zoneNumber: Int64
    let prefix: [UInt8]
    let reverse: Bool
    private var range: KeyRange
    /// The ranges after ``range``, the next last.
    private var pending: [KeyRange]
    private var buffer: [(group: [UInt8], name: String, position: Int64)] = []
    private var position = 0
    private var exhausted = false
    /// Whether the buffer reaches the end of the range it was read from.
    private var bufferEndsRange = false

    /// A scanner of the groups inside `bounds` (every group when `nil`), from `startGroup` on.
    init(
        zoneID: CKRecordZone.ID, zoneNumber: Int64, prefix: [UInt8], reverse: Bool, startGroup: [UInt8]?,
        bounds: [IndexBounds]? = nil
    ) {
        self.zoneID = zoneID
        self.zoneNumber = zoneNumber
        self.prefix = prefix
        self.reverse = reverse
        var ranges =
            bounds.map { $0.map { KeyRange(from: prefix + $0.lower, to: prefix + $0.upper) } } ?? [
                KeyRange(prefix: prefix)
            ]
        if let startGroup {
            if reverse {
                // Up to the last entry of the start group itself: an entry is the group then the
                // record name (a string element). A group that extends the start group's bytes
                // (an integer's after an equal double's, a string with a NUL after its prefix)
                // sorts after it and was walked already.
                let end = KeyRange.successor(ofPrefix: prefix + startGroup + [OrderedKey.stringTag])
                ranges = ranges.map { KeyRange.less(end, $0.upperBound) ? KeyRange(from: $0.lowerBound, to: end) : $0 }
            } else {
                let start = prefix + startGroup
                ranges = ranges.map {
                    KeyRange.less($0.lowerBound, start) ? KeyRange(from: start, to: $0.upperBound) : $0
                }
            }
        }
        ranges.removeAll { $0.isEmpty }
        self.pending = reverse ? ranges : ranges.reversed()
        self.range = pending.popLast() ?? KeyRange(from: prefix, to: prefix)
        self.exhausted = range.isEmpty
    }

    /// Reads the next entries once the buffer is used up, range after range.
    private mutating func fill(_ txn: any BackendReadTransaction) throws {
        while position >= buffer.count, !exhausted {
            if range.isEmpty {
                nextRange()
                continue
            }
            let page = try txn.scan(range, limit: 256, reverse: reverse)
            buffer = try page.map { pair in
                let (group, name) = try IndexGroupScanner.split(pair.key, prefixLength: prefix.count)
                var reader = ByteReader(pair.value)
                return (group, name, try reader.readInt64())
            }
            position = 0
            bufferEndsRange = page.count < 256
            if let last = page.last, page.count == 256 {
                range =
                    reverse
                    ? KeyRange(from: range.lowerBound, to: last.key)
                    : KeyRange(from: last.key + [0], to: range.upperBound)
            } else {
                nextRange()
            }
        }
    }

    private mutating func nextRange() {
        if let next = pending.popLast() {
            range = next
        } else {
            exhausted = true
        }
    }

    /// The encoded value of the next group, or `nil` at the end.
    mutating func peekGroup(_ txn: any BackendReadTransaction) throws -> [UInt8]? {
        try fill(txn)
        return position < buffer.count ? buffer[position].group : nil
    }

    /// The record names of group `group`, with the positions of their change-log entries, if
    /// it is next.
    mutating func takeGroup(
        _ group: [UInt8], _ txn: any BackendReadTransaction
    ) throws -> [(name: String, position: Int64)] {
        var members: [(name: String, position: Int64)] = []
        while try peekGroup(txn) == group {
            members.append((buffer[position].name, buffer[position].position))
            position += 1
        }
        return members
    }

    /// Whether every entry of group `group`, if it is next, is read already (so taking it reads
    /// nothing more of it).
    mutating func holdsWhole(_ group: [UInt8], _ txn: any BackendReadTransaction) throws -> Bool {
        guard try peekGroup(txn) == group else { return true }
        var end = position
        while end < buffer.count, buffer[end].group == group { end += 1 }
        return end < buffer.count || bufferEndsRange
    }

    /// Moves past group `group` if it is next, without reading the entries of it not yet read
    /// (a group read in pieces by ``SortedIndexWalk``).
    mutating func skip(_ group: [UInt8], _ txn: any BackendReadTransaction) throws {
        guard try peekGroup(txn) == group else { return }
        while position < buffer.count, buffer[position].group == group { position += 1 }
        guard position >= buffer.count, !exhausted else { return }
        // The entries of `group` are the group, then a record name (a string element).
        let entries = prefix + group + [OrderedKey.stringTag]
        if reverse {
            if KeyRange.less(entries, range.upperBound) { range = KeyRange(from: range.lowerBound, to: entries) }
        } else {
            let end = KeyRange.successor(ofPrefix: entries)
            if KeyRange.less(range.lowerBound, end) { range = KeyRange(from: end, to: range.upperBound) }
        }
    }

    /// The value of an index entry: the position of the record's change-log entry.
    static func entryValue(position: Int64) -> [UInt8] {
        var w = ByteWriter(capacity: 8)
        w.write(position)
        return w.bytes
    }

    /// Splits an index key into its encoded value (every element but the last) and the record
    /// name (the last element).
    static func split(_ key: [UInt8], prefixLength: Int) throws -> (group: [UInt8], name: String) {
        var reader = OrderedKeyReader(key, from: prefixLength)
        var boundaries: [Int] = []
        while !reader.isAtEnd {
            boundaries.append(reader.offset)
            try reader.skipElement()
        }
        guard let nameStart = boundaries.last else { throw EngineError.corruptKey }
        var nameReader = OrderedKeyReader(key, from: nameStart)
        return (Array(key[prefixLength..<nameStart]), try nameReader.readString())
    }
}
