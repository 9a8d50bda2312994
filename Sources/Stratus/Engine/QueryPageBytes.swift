/// The bytes a query page's records carry, counted as the 1 MB record limit counts them (names
/// and values of the fields the answer holds: `desiredKeys`, or all). A page ends after the record that takes it
/// to ``DatabaseContext/maximumQueryPageBytes``, whatever its limit, with a cursor after that
/// record (decision 0005): 400 records of 1 MB would otherwise be one answer of 400 MB. A fetch
/// by ID, which has no cursor, counts its records the same way and is refused past
/// ``DatabaseContext/maximumFetchBytes``.
struct QueryPageBytes {
    private let desiredKeys: Set<String>?
    private let budget: Int
    /// The bytes counted so far.
    private(set) var total = 0

    init(desiredKeys: [String]?, budget: Int = DatabaseContext.maximumQueryPageBytes) {
        self.desiredKeys = desiredKeys.map(Set.init)
        self.budget = budget
    }

    /// Counts `record`, delivered; `true` when the page is full.
    mutating func add(_ record: StoredRecord) -> Bool {
        for (key, value) in record.fields where desiredKeys?.contains(key) ?? true {
            total += key.utf8.count + value.storageSize
        }
        return total >= budget
    }

    /// Counts `record`; `true` once the records counted hold more than the budget.
    mutating func overflows(with record: StoredRecord) -> Bool {
        _ = add(record)
        return total > budget
    }
}
