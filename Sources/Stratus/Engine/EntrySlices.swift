import StratusBackend

/// The change-log entries of a page's candidates, read in slices of one `getMany` each.
///
/// A walk's first slice is what its page needs, up to ``firstSliceSize`` (128: a page of 100 and
/// the one after it, in one read); each next slice doubles, up to 512, while the entries read are
/// small, and halves when a slice held more than ``largeSliceBytes``
/// (``nextSize(after:size:largest:)``). So small records are read in few round trips, and a walk
/// over records of 1 MB holds at most 128 of them at a time, soon a few, not 512.
struct EntrySlices {
    /// The bytes past which the next slice is smaller.
    static let largeSliceBytes = 4 << 20
    /// The most entries of a first slice.
    static let firstSliceSize = 128

    let keys: [[UInt8]]
    private var slice: [[UInt8]?] = []
    private var start = 0
    private var index = 0
    /// The entries of the next slice.
    private(set) var size: Int

    /// The entries of `keys`, read `size` at a time to begin with.
    init(keys: [[UInt8]], size: Int) {
        self.keys = keys
        self.size = max(1, size)
    }

    /// The next entry's bytes (`nil` when it is missing).
    mutating func next(_ txn: any BackendReadTransaction) throws -> [UInt8]? {
        if index == slice.count {
            guard start < keys.count else { throw EngineError.corruptValue }
            let end = min(start + size, keys.count)
            slice = []  // the last slice's entries go before the next is read
            slice = try txn.getMany(Array(keys[start..<end]))
            start = end
            index = 0
            size = Self.nextSize(after: slice.reduce(0) { $0 + ($1?.count ?? 0) }, size: size, largest: 512)
        }
        defer { index += 1 }
        return slice[index]
    }

    /// The size of the slice after one of `size` entries that held `bytes` bytes: half when
    /// they were many, else twice, up to `largest`.
    static func nextSize(after bytes: Int, size: Int, largest: Int) -> Int {
        bytes > largeSliceBytes ? max(1, size / 2) : min(largest, size * 2)
    }
}
