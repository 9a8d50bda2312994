/// The records a sorted page has taken so far from the groups of its index walk, and where the
/// page ends (decision 0005): full, its bytes spent (``QueryPageBytes``), or its reading spent
/// (``DatabaseContext/maximumRecordsReadPerPage``).
struct SortedPageAssembly {
    /// How a page ends: its first `n` records, with a cursor after the last of them; or every
    /// record taken, with a cursor after `item` (the last record read, matching or not).
    enum End {
        case first(Int)
        case after(SortedPageItem)
    }

    let pageSize: Int
    let sortKeys: [SortKey]
    /// Where the page resumed, with its sort values as the evaluator compares them.
    let start: (position: SortedCursorPosition, values: [PredicateValue?])?
    private(set) var records: [SortedPageItem] = []
    private var bytes: QueryPageBytes
    private var read = 0

    init(pageSize: Int, sortKeys: [SortKey], start: SortedCursorPosition?, desiredKeys: [String]?) {
        self.pageSize = pageSize
        self.sortKeys = sortKeys
        self.start = start.map { ($0, $0.values.map { $0?.predicateValue }) }
        self.bytes = QueryPageBytes(desiredKeys: desiredKeys)
    }

    /// The records the page still needs before filtering: what fills it, and one more.
    var needed: Int { pageSize + 1 - min(records.count, pageSize) }

    /// Takes the members of a group read in pieces (`stored` reads a member's record, `admits`
    /// says whether the query takes it, `item` makes its page item), in the page's order already; the page may
    /// end after any of them.
    mutating func take(
        piece group: SortedIndexWalk.Group,
        stored: (SortedIndexWalk.Member) throws -> StoredRecord,
        admits: (StoredRecord, SortedIndexWalk.Member, [UInt8]) throws -> Bool,
        item: (StoredRecord, SortedIndexWalk.Member, [UInt8]) -> SortedPageItem
    ) throws -> End? {
        for member in group.members {
            let record = try stored(member)
            read += 1
            if try admits(record, member, group.value) {
                records.append(item(record, member, group.value))
                if records.count > pageSize { return .first(pageSize) }
                if bytes.add(record) { return .first(records.count) }
            }
            if read >= DatabaseContext.maximumRecordsReadPerPage {
                return .after(item(record, member, group.value))
            }
        }
        return nil
    }

    /// Takes the best matches of a group read whole, sorted in memory (at most what the page
    /// can still take). When the group spends the reading, the page ends after its furthest
    /// record, matching or not — unless the page resumed in it: its members up to the cursor
    /// were delivered, and a group larger than the budget would end every page there.
    mutating func take(
        whole group: SortedIndexWalk.Group,
        stored: (SortedIndexWalk.Member) throws -> StoredRecord,
        admits: (StoredRecord, SortedIndexWalk.Member, [UInt8]) throws -> Bool,
        item: (StoredRecord, SortedIndexWalk.Member, [UInt8]) -> SortedPageItem
    ) throws -> End? {
        var selection = MemorySortSelection<SortedPageItem>(sortKeys: sortKeys, keep: pageSize + 1 - records.count)
        if let start, group.value == start.position.group {
            selection.after = MemorySortPosition(
                values: start.values, zone: start.position.zone, name: start.position.name)
        }
        read += group.members.count
        let spent = read >= DatabaseContext.maximumRecordsReadPerPage && group.value != start?.position.group
        var furthest: SortedPageItem?
        for member in group.members {
            let record = try stored(member)
            if spent {
                let candidate = item(record, member, group.value)
                if furthest.map({ selection.precedes($0.position, candidate.position) }) ?? true {
                    furthest = candidate
                }
            }
            guard try admits(record, member, group.value) else { continue }
            let candidate = item(record, member, group.value)
            selection.consider(candidate.position, candidate)
        }
        let earlier = records.count
        records += selection.page(size: pageSize + 1 - records.count).page.map(\.payload)
        // The page's bytes spent at a record of this group: it ends after that record.
        if let full = (earlier..<min(records.count, pageSize)).first(where: { bytes.add(records[$0].stored) }) {
            return .first(full + 1)
        }
        if records.count > pageSize { return .first(pageSize) }
        if spent, let furthest { return .after(furthest) }
        return nil
    }
}
