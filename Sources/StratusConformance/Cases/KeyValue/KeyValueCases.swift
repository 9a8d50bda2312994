/// The key-value contract of `DatabaseBackend` itself: ordering, reads and writes, range
/// scans, transactions, isolation, durability and the handle lifecycle.
///
/// Every ID starts with `kv.`; the groups live in `KeyValue<Group>Cases.swift`.
enum KeyValueCases {
    static var all: [ConformanceCase] {
        ordering + basic + scan + batch + transactions + isolation + durability + lifecycle
    }
}
