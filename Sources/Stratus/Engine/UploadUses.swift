/// How one modify request uses uploads (assets that name staged content,
/// ``AssetValue/stagedOnly``): the first use of an upload adopts its content, each further
/// use within the request writes a copy of it.
struct UploadUses {
    /// The most copies of uploaded content one request may write: as many as its largest
    /// number of operations, so that one record per operation can share an upload (the same
    /// file in every record), and a list of thousands of one receipt cannot turn one upload
    /// into terabytes.
    static let maximumCopies = Validation.maximumItemsPerRequest

    /// Uses so far, by content ID.
    private var uses: [String: Int] = [:]
    /// Uses beyond the first of each upload so far: the copies the request writes.
    private(set) var copies = 0

    /// Counts one more use of `contentID`; answers how many there are now (1 for the first).
    mutating func use(_ contentID: String) -> Int {
        let count = uses[contentID, default: 0] + 1
        uses[contentID] = count
        if count > 1 { copies += 1 }
        return count
    }
}
