import StratusBackend

/// The change-log entries of a page's candidates, read 512 at a time in one `getMany` each.
struct EntrySlices {
    let keys: [[UInt8]]
    private var slice: [[UInt8]?] = []
    private var start = 0
    private var index = 0

    init(keys: [[UInt8]]) {
        self.keys = keys
    }

    /// The next entry's bytes (`nil` when it is missing).
    mutating func next(_ txn: any BackendReadTransaction) throws -> [UInt8]? {
        if index == slice.count {
            guard start < keys.count else { throw EngineError.corruptValue }
            let end = min(start + 512, keys.count)
            slice = try txn.getMany(Array(keys[start..<end]))
            start = end
            index = 0
        }
        defer { index += 1 }
        return slice[index]
    }
}
