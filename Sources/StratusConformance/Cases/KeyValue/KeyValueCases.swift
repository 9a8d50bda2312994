/// The key-value contract of `DatabaseBackend` itself: ordering, range scans, isolation,
/// durability.
enum KeyValueCases {
    static var all: [ConformanceCase] {
        []
    }
}
