import StratusBackend

/// Walks several groups of one zone's index as one sequence of record names, ascending by
/// their encoded name (the order of the zone's records, and so of a scan), each name once
/// however many of the groups hold it (decision 0019.8).
///
/// The groups are those inside `bounds`: each range is searched for its groups by seeking
/// past one group to the next (a number's range holds an integer's and a double's group),
/// and each group is then read from the record after the cursor's name, a few entries at a
/// time. A walk reads the entries it returns, those of the same record in other groups, and
/// one seek per group — not the groups' other entries.
struct IndexUnionMerger {
    /// One group's entries (the group's bytes then a record name), from a starting name on.
    private struct Stream {
        /// The index prefix and the group: an entry's key is this and a name.
        var groupKey: [UInt8]
        var range: KeyRange
        var buffer: [Entry] = []
        var index = 0
        var exhausted = false
        /// How many entries the next read fetches: a few after a seek, doubling while the
        /// group is read on, so a read-ahead costs at most what was used.
        var readSize = IndexUnionMerger.firstReadSize

        var head: Entry? { index < buffer.count ? buffer[index] : nil }
    }

    /// An index entry: the record's encoded name, its name, its change-log position.
    struct Entry {
        var nameKey: [UInt8]
        var name: String
        var position: Int64
    }

    /// How many entries of a group the first read fetches, and at most one read.
    static let firstReadSize = 4
    static let maximumReadSize = 128

    private let prefix: [UInt8]
    private let bounds: [IndexBounds]
    private let after: [UInt8]?
    private var streams: [Stream]?

    /// A walk of the groups inside `bounds` of the index under `prefix`, starting after the
    /// record named `after` (from the first record when `nil`).
    init(prefix: [UInt8], bounds: [IndexBounds], after: String?) {
        self.prefix = prefix
        self.bounds = bounds
        self.after = after.map { OrderedKey().appending($0).bytes }
    }

    /// The next record name of the walk with its change-log position, or `nil` at the end.
    mutating func next(_ txn: any BackendReadTransaction) throws -> Entry? {
        guard let head = try peek(atLeast: nil, txn) else { return nil }
        pop(head)
        return head
    }

    /// The walk's next record name that is not before `target` (an encoded name), without
    /// taking it: entries before it are skipped, inside what was read or by seeking the group
    /// to it.
    mutating func peek(atLeast target: [UInt8]?, _ txn: any BackendReadTransaction) throws -> Entry? {
        if streams == nil { streams = try discoverGroups(txn) }
        guard var streams else { return nil }
        defer { self.streams = streams }
        if let target {
            for i in streams.indices { try Self.skip(&streams[i], to: target, prefix: prefix, txn) }
        }
        try Self.fill(&streams, prefix: prefix, txn)
        var best: Entry?
        for stream in streams {
            if let head = stream.head, best.map({ KeyRange.less(head.nameKey, $0.nameKey) }) ?? true {
                best = head
            }
        }
        return best
    }

    /// Takes `entry`, the name ``peek(atLeast:_:)`` returned, from every group holding it.
    mutating func pop(_ entry: Entry) {
        guard var streams else { return }
        for i in streams.indices where streams[i].head?.nameKey == entry.nameKey {
            streams[i].index += 1
        }
        self.streams = streams
    }

    /// Skips the stream's entries before `target`: those read already, then by moving the
    /// start of what is left to read.
    private static func skip(
        _ stream: inout Stream, to target: [UInt8], prefix: [UInt8], _ txn: any BackendReadTransaction
    ) throws {
        while let head = stream.head, KeyRange.less(head.nameKey, target) { stream.index += 1 }
        guard stream.head == nil, !stream.exhausted else { return }
        let from = stream.groupKey + target
        if KeyRange.less(stream.range.lowerBound, from) {
            stream.range = KeyRange(from: from, to: stream.range.upperBound)
            stream.readSize = firstReadSize
        }
    }

    /// The groups inside the bounds, each as a stream from the first name after `after`, in
    /// the bounds' order. Every range is searched at once: each round reads the next group of
    /// every range not yet used up in one batch of reads (one round trip on a server backend).
    private func discoverGroups(_ txn: any BackendReadTransaction) throws -> [Stream] {
        var found: [[Stream]] = Array(repeating: [], count: bounds.count)
        var searches: [(range: Int, rest: KeyRange)] = bounds.indices.map { index in
            (index, KeyRange(from: prefix + bounds[index].lower, to: prefix + bounds[index].upper))
        }
        searches.removeAll { $0.rest.isEmpty }
        let nameTag = OrderedKey.stringTag
        while !searches.isEmpty {
            let pages = try txn.getMany([], scanning: searches.map { ScanRequest($0.rest, limit: 1) }).scans
            var next: [(range: Int, rest: KeyRange)] = []
            for (search, page) in zip(searches, pages) {
                guard let first = page.first else { continue }
                let (group, _) = try IndexGroupScanner.split(first.key, prefixLength: prefix.count)
                // A group's entries are its bytes then a name (a string element): every key
                // from the group and the string tag up to the group and the next tag.
                let start = after.map { prefix + group + $0 + [0] } ?? prefix + group + [nameTag]
                let end = prefix + group + [nameTag + 1]
                found[search.range].append(Stream(groupKey: prefix + group, range: KeyRange(from: start, to: end)))
                let rest = KeyRange(from: end, to: search.rest.upperBound)
                if !rest.isEmpty { next.append((search.range, rest)) }
            }
            searches = next
        }
        return found.flatMap { $0 }
    }

    /// Reads the next entries of every stream whose buffer is used up, in one batch of reads.
    private static func fill(_ streams: inout [Stream], prefix: [UInt8], _ txn: any BackendReadTransaction) throws {
        let empty = streams.indices.filter { streams[$0].index >= streams[$0].buffer.count && !streams[$0].exhausted }
        guard !empty.isEmpty else { return }
        var requests: [ScanRequest] = []
        for i in empty where !streams[i].range.isEmpty {
            requests.append(ScanRequest(streams[i].range, limit: streams[i].readSize))
        }
        var pages = requests.isEmpty ? [] : try txn.getMany([], scanning: requests).scans
        pages.reverse()
        for i in empty {
            let page = streams[i].range.isEmpty ? [] : pages.removeLast()
            try take(page, into: &streams[i], prefix: prefix)
        }
    }

    /// Puts `page`, the stream's next entries read at its read size, in its buffer.
    private static func take(_ page: [KeyValuePair], into stream: inout Stream, prefix: [UInt8]) throws {
        let limit = stream.readSize
        stream.readSize = min(limit * 2, maximumReadSize)
        stream.buffer = try page.map { pair in
            let (group, name) = try IndexGroupScanner.split(pair.key, prefixLength: prefix.count)
            var reader = ByteReader(pair.value)
            return Entry(
                nameKey: Array(pair.key[(prefix.count + group.count)...]), name: name, position: try reader.readInt64())
        }
        stream.index = 0
        if let last = page.last, page.count == limit {
            stream.range = KeyRange(from: last.key + [0], to: stream.range.upperBound)
        } else {
            stream.exhausted = true
        }
    }
}
