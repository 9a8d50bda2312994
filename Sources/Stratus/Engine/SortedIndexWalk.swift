import StratusBackend

/// The groups of one sort index across every zone, in index order.
///
/// A group is read whole when its records must be sorted in memory (by a second sort key, or by
/// a string value longer than the index keeps). Otherwise its records tie, their order is the
/// tie-break's — zone by zone, then by name — and a page can end after any of them. Such a
/// group is taken whole when the scanners have read it already (a few records), and otherwise
/// read **in pieces** by name, as few records as the page needs, so a group of most of the zone
/// (a Boolean, a field most records lack) costs a page what the page holds (decision 0005).
struct SortedIndexWalk {
    /// A record of a group: which zone's scanner met it, its name, and where its change-log
    /// entry is.
    struct Member {
        var zoneID: CKRecordZone.ID
        var zoneNumber: Int64
        var name: String
        var position: Int64
    }

    /// Records of one group: all of them, or (``inPieces``) the next ones in the page's order.
    struct Group {
        var value: [UInt8]
        var members: [Member]
        var inPieces: Bool
    }

    /// Where a group read in pieces goes on: the scanner of the zone being read, and the
    /// encoded name of the last record read there.
    private struct Piece {
        var group: [UInt8]
        var scanner: Int
        var after: [UInt8]?
    }

    private var scanners: [IndexGroupScanner]
    private let ascending: Bool
    /// Whether a group can be read in pieces.
    private let readsInPieces: ([UInt8]) -> Bool
    /// Where the walk resumes inside its first group, when that group is read in pieces.
    private var resume: (group: [UInt8], zone: Int64, name: String)?
    private var piece: Piece?

    /// A walk of `scanners` (one per zone, by ascending zone number) from `start` on.
    init(
        scanners: [IndexGroupScanner], ascending: Bool, start: SortedCursorPosition?,
        readsInPieces: @escaping ([UInt8]) -> Bool
    ) {
        self.scanners = scanners
        self.ascending = ascending
        self.readsInPieces = readsInPieces
        self.resume = start.map { ($0.group, $0.zone, $0.name) }
    }

    /// The next groups in index order across every zone, until they hold at least `count`
    /// records (fewer at the end of the walk; none when it is over). A group read in pieces
    /// gives at most the records still needed, and continues on the next call.
    mutating func nextGroups(holding count: Int, _ txn: any BackendReadTransaction) throws -> [Group] {
        var groups: [Group] = []
        var held = 0
        while held < count {
            if piece == nil {
                guard let group = try nextGroupValue(txn) else { break }
                let inPieces = readsInPieces(group)
                if inPieces, try resume?.group == group || !holdsWhole(group, txn) {
                    startPiece(of: group)
                } else {
                    // Read already (every group but the large): taken whole, by zone and name.
                    let members = try takeWhole(group, byName: inPieces, txn)
                    held += members.count
                    groups.append(Group(value: group, members: members, inPieces: inPieces))
                    continue
                }
            }
            guard let group = piece?.group else { break }
            let members = try readPiece(limit: count - held, txn)
            held += members.count
            if !members.isEmpty { groups.append(Group(value: group, members: members, inPieces: true)) }
        }
        return groups
    }

    /// The encoded value of the next group in index order across every zone.
    private mutating func nextGroupValue(_ txn: any BackendReadTransaction) throws -> [UInt8]? {
        var next: [UInt8]?
        for index in scanners.indices {
            guard let group = try scanners[index].peekGroup(txn) else { continue }
            if let current = next {
                if ascending ? KeyRange.less(group, current) : KeyRange.less(current, group) { next = group }
            } else {
                next = group
            }
        }
        return next
    }

    /// Whether every zone's scanner has read all of `group` already.
    private mutating func holdsWhole(_ group: [UInt8], _ txn: any BackendReadTransaction) throws -> Bool {
        for index in scanners.indices where try !scanners[index].holdsWhole(group, txn) { return false }
        return true
    }

    /// Every record of `group`, zone by zone; `byName`, in each zone by name even when the walk
    /// is descending (the order of a group read in pieces).
    private mutating func takeWhole(
        _ group: [UInt8], byName: Bool, _ txn: any BackendReadTransaction
    ) throws -> [Member] {
        var members: [Member] = []
        for index in scanners.indices {
            let scanner = scanners[index]
            var taken = try scanners[index].takeGroup(group, txn)
            if byName && !ascending { taken.reverse() }
            for (name, position) in taken {
                members.append(
                    Member(zoneID: scanner.zoneID, zoneNumber: scanner.zoneNumber, name: name, position: position))
            }
        }
        return members
    }

    /// Begins reading `group` in pieces: from its first zone, or after the cursor's record when
    /// the walk resumes inside it.
    private mutating func startPiece(of group: [UInt8]) {
        piece = Piece(group: group, scanner: 0, after: nil)
        guard let resume, resume.group == group else { return }
        self.resume = nil
        let scanner = scanners.firstIndex { $0.zoneNumber >= resume.zone } ?? scanners.count
        piece?.scanner = scanner
        if scanner < scanners.count, scanners[scanner].zoneNumber == resume.zone {
            piece?.after = OrderedKey().appending(resume.name).bytes
        }
    }

    /// Up to `limit` more records of the group being read in pieces, zone by zone, by name; at
    /// the group's end every scanner is moved past it.
    private mutating func readPiece(limit: Int, _ txn: any BackendReadTransaction) throws -> [Member] {
        var members: [Member] = []
        while var current = piece, members.count < limit {
            guard current.scanner < scanners.count else {
                for index in scanners.indices { try scanners[index].skip(current.group, txn) }
                piece = nil
                break
            }
            // A zone whose scanner is not at the group holds none of it.
            guard try scanners[current.scanner].peekGroup(txn) == current.group else {
                current.scanner += 1
                current.after = nil
                piece = current
                continue
            }
            let scanner = scanners[current.scanner]
            let wanted = limit - members.count
            let groupPrefix = scanner.prefix + current.group
            let entries = try txn.scan(
                KeyRange(
                    from: current.after.map { groupPrefix + $0 + [0] } ?? groupPrefix + [OrderedKey.stringTag],
                    to: KeyRange.successor(ofPrefix: groupPrefix + [OrderedKey.stringTag])),
                limit: wanted)
            for pair in entries {
                let (_, name) = try IndexGroupScanner.split(pair.key, prefixLength: scanner.prefix.count)
                var reader = ByteReader(pair.value)
                members.append(
                    Member(
                        zoneID: scanner.zoneID, zoneNumber: scanner.zoneNumber, name: name,
                        position: try reader.readInt64()))
            }
            if entries.count == wanted, let last = entries.last {
                current.after = Array(last.key[groupPrefix.count...])
            } else {
                current.scanner += 1
                current.after = nil
            }
            piece = current
        }
        return members
    }
}
