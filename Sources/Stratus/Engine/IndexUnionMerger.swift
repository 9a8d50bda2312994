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
        var range: KeyRange
        var buffer: [Entry] = []
        var index = 0
        var exhausted = false

        var head: Entry? { index < buffer.count ? buffer[index] : nil }
    }

    /// An index entry: the record's encoded name, its name, its change-log position.
    struct Entry {
        var nameKey: [UInt8]
        var name: String
        var position: Int64
    }

    /// How many entries of a group one read fetches.
    static let readSize = 64

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
        if streams == nil { streams = try discoverGroups(txn) }
        guard var streams else { return nil }
        defer { self.streams = streams }
        var best: Entry?
        for i in streams.indices {
            try Self.fill(&streams[i], prefix: prefix, txn)
            if let head = streams[i].head, best.map({ KeyRange.less(head.nameKey, $0.nameKey) }) ?? true {
                best = head
            }
        }
        guard let best else { return nil }
        // The same record in other groups: taken once.
        for i in streams.indices where streams[i].head?.nameKey == best.nameKey {
            streams[i].index += 1
        }
        return best
    }

    /// The groups inside the bounds, each as a stream from the first name after `after`.
    private func discoverGroups(_ txn: any BackendReadTransaction) throws -> [Stream] {
        var streams: [Stream] = []
        let nameTag = OrderedKey.stringTag
        for range in bounds {
            var from = prefix + range.lower
            let to = prefix + range.upper
            while KeyRange.less(from, to) {
                guard let first = try txn.scan(KeyRange(from: from, to: to), limit: 1).first else { break }
                let (group, _) = try IndexGroupScanner.split(first.key, prefixLength: prefix.count)
                // A group's entries are its bytes then a name (a string element): every key
                // from the group and the string tag up to the group and the next tag.
                let start = after.map { prefix + group + $0 + [0] } ?? prefix + group + [nameTag]
                let end = prefix + group + [nameTag + 1]
                streams.append(Stream(range: KeyRange(from: start, to: end)))
                from = end
            }
        }
        return streams
    }

    /// Reads the stream's next entries once its buffer is used up.
    private static func fill(_ stream: inout Stream, prefix: [UInt8], _ txn: any BackendReadTransaction) throws {
        guard stream.index >= stream.buffer.count, !stream.exhausted else { return }
        let page = stream.range.isEmpty ? [] : try txn.scan(stream.range, limit: readSize)
        stream.buffer = try page.map { pair in
            let (group, name) = try IndexGroupScanner.split(pair.key, prefixLength: prefix.count)
            var reader = ByteReader(pair.value)
            return Entry(
                nameKey: Array(pair.key[(prefix.count + group.count)...]), name: name, position: try reader.readInt64())
        }
        stream.index = 0
        if let last = page.last, page.count == readSize {
            stream.range = KeyRange(from: last.key + [0], to: stream.range.upperBound)
        } else {
            stream.exhausted = true
        }
    }
}
