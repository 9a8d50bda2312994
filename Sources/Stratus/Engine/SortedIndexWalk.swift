import StratusBackend

/// The groups of one sort index across every zone, in index order.
struct SortedIndexWalk {
    /// A record of a group: which zone's scanner met it, its name, and where its change-log
    /// entry is.
    struct Member {
        var zoneID: CKRecordZone.ID
        var zoneNumber: Int64
        var name: String
        var position: Int64
    }

    var scanners: [IndexGroupScanner]
    let ascending: Bool

    /// The next groups in index order across every zone, until they hold at least `count`
    /// records (fewer at the end of the walk; none when it is over).
    mutating func nextGroups(holding count: Int, _ txn: any BackendReadTransaction) throws -> [(
        group: [UInt8], members: [Member]
    )] {
        var groups: [(group: [UInt8], members: [Member])] = []
        var held = 0
        while held < count {
            var next: [UInt8]?
            for index in scanners.indices {
                guard let group = try scanners[index].peekGroup(txn) else { continue }
                if let current = next {
                    if ascending ? KeyRange.less(group, current) : KeyRange.less(current, group) { next = group }
                } else {
                    next = group
                }
            }
            guard let group = next else { break }
            var members: [Member] = []
            for index in scanners.indices {
                let scanner = scanners[index]
                for (name, position) in try scanners[index].takeGroup(group, txn) {
                    members.append(
                        Member(zoneID: scanner.zoneID, zoneNumber: scanner.zoneNumber, name: name, position: position))
                }
            }
            held += members.count
            groups.append((group, members))
        }
        return groups
    }
}
