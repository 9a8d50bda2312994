import StratusBackend

extension KeyValueCases {
    /// Copies of the pairs `transaction` lends for a scan of `range`
    /// (``BackendReadTransaction/scan(_:limit:reverse:lending:)``).
    private static func lentPairs(
        _ transaction: any BackendReadTransaction, _ range: KeyRange, limit: Int, reverse: Bool
    ) throws -> [KeyValuePair] {
        var pairs: [KeyValuePair] = []
        try transaction.scan(range, limit: limit, reverse: reverse) { key, value in
            pairs.append(KeyValuePair(key: Array(key), value: Array(value)))
        }
        return pairs
    }

    /// The scans `kv.scan.lending` compares: prefixes, bounds between keys, limits, reverse,
    /// empty and inverted ranges, and the long keys.
    private static let lendingScans: [ScanRequest] = [
        ScanRequest(.everything, limit: 1_000),
        ScanRequest(.everything, limit: 1_000, reverse: true),
        ScanRequest(KeyRange(prefix: .utf8("m")), limit: 7),
        ScanRequest(KeyRange(prefix: .utf8("m")), limit: 7, reverse: true),
        ScanRequest(KeyRange(from: .utf8("m05"), to: .utf8("m12")), limit: 100),
        ScanRequest(KeyRange(from: .utf8("m05"), to: .utf8("m12")), limit: 3, reverse: true),
        ScanRequest(KeyRange(prefix: lendingLongPrefix), limit: 100),
        ScanRequest(KeyRange(prefix: lendingLongPrefix), limit: 2, reverse: true),
        ScanRequest(KeyRange(from: .utf8("m09"), to: .utf8("m01")), limit: 10),
        ScanRequest(KeyRange(from: .utf8("m07"), to: .utf8("m07")), limit: 1),
    ]

    /// The shared first 600 bytes of the long keys (longer than LMDB's keys may be).
    private static let lendingLongPrefix: [UInt8] = .utf8("L") + [UInt8](repeating: 0x4C, count: 599)

    /// Twenty pairs `m00` … `m19` (`m03`'s value empty), and three long keys.
    private static let lendingPairs: [KeyValuePair] =
        (0..<20).map { index in
            let digits = index < 10 ? "0\(index)" : "\(index)"
            return KeyValuePair(key: .utf8("m" + digits), value: index == 3 ? [] : .utf8("value " + digits))
        } + (0..<3).map { KeyValuePair(key: lendingLongPrefix + [UInt8($0)], value: .utf8("long \($0)")) }

    /// Fails unless every scan of ``lendingScans`` lends, in order, the pairs the same scan returns.
    private static func expectLendingMatchesScan(
        _ transaction: any BackendReadTransaction, _ context: ConformanceContext
    ) throws {
        for scan in lendingScans {
            try context.expectPairs(
                try lentPairs(transaction, scan.range, limit: scan.limit, reverse: scan.reverse),
                try transaction.scan(scan.range, limit: scan.limit, reverse: scan.reverse),
                "the pairs lent by a scan of \(scan.range) (limit \(scan.limit), reverse \(scan.reverse))")
        }
    }

    static let lending = ConformanceCase(
        "kv.scan.lending",
        "A scan that lends its pairs lends, in order, exactly the pairs the same scan returns: forward, "
            + "reverse, limited, empty ranges, an empty value, keys longer than 511 bytes, and inside a "
            + "write body its own sets and clears."
    ) { context in
        let backend = try context.open()
        context.step("store m00 … m19 and three 601-byte keys")
        try context.put(backend, lendingPairs)
        try context.must("the read body succeeds") {
            try backend.read { transaction in
                try expectLendingMatchesScan(transaction, context)
                try context.expectEqual(
                    try lentPairs(transaction, .everything, limit: 1_000, reverse: false).count, 23, "the pairs lent")
            }
        }
        context.step("in a write body: set m055 and a fourth long key, clear m07, then compare")
        try context.must("the write body commits") {
            try backend.write { transaction in
                try transaction.set(.utf8("m055"), .utf8("added"))
                try transaction.set(lendingLongPrefix + [9], .utf8("long 9"))
                try transaction.clear(.utf8("m07"))
                try expectLendingMatchesScan(transaction, context)
                try context.expectKeys(
                    try lentPairs(
                        transaction, KeyRange(from: .utf8("m05"), to: .utf8("m07")), limit: 10, reverse: false),
                    [.utf8("m05"), .utf8("m055"), .utf8("m06")], "the body's own set, lent")
            }
        }
    }
}
