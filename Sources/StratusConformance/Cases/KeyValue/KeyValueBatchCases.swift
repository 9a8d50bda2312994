import StratusBackend

extension KeyValueCases {
    /// `kv.batch.*`: keys and scans read together (`getMany(_:scanning:)`) answer what the same
    /// reads made one by one answer, in a read body and in a write body with its own writes.
    static var batch: [ConformanceCase] { [batchMatchesSeparateReads, batchSeesOwnWrites] }

    /// Twelve pairs `b00` … `b11`, each valued `v00` … `v11`.
    private static let batchPairs = (0..<12).map { index in
        let digits = index < 10 ? "0\(index)" : "\(index)"
        return KeyValuePair("b" + digits, "v" + digits)
    }

    /// The keys and scans both cases read: present and missing keys (one twice), forward,
    /// reverse, limited, empty and inverted ranges.
    private static let batchKeys: [[UInt8]] = [.utf8("b03"), .utf8("zz"), .utf8("b11"), .utf8("b03"), .utf8("b0")]
    private static let batchScans: [ScanRequest] = [
        ScanRequest(KeyRange(prefix: .utf8("b")), limit: 100),
        ScanRequest(KeyRange(from: .utf8("b02"), to: .utf8("b09")), limit: 3, reverse: true),
        ScanRequest(KeyRange(from: .utf8("b05"), to: .utf8("b05")), limit: 1),
        ScanRequest(KeyRange(from: .utf8("b09"), to: .utf8("b01")), limit: 10),
        ScanRequest(KeyRange(prefix: .utf8("c")), limit: 5),
        ScanRequest(.everything, limit: 4),
    ]

    /// Fails unless `batched` holds what the same reads one by one in `transaction` return.
    private static func expectSameReads(
        _ batched: BatchedReads, _ transaction: any BackendReadTransaction, _ context: ConformanceContext
    ) throws {
        let values = try batchKeys.map { try transaction.get($0) }
        try context.expectEqual(batched.values.count, batchKeys.count, "the number of values")
        for (index, key) in batchKeys.enumerated() {
            try context.expectValue(
                batched.values[index], values[index], "the batched value of \(ByteText.describe(key))")
        }
        try context.expectEqual(batched.scans.count, batchScans.count, "the number of scans answered")
        for (index, scan) in batchScans.enumerated() {
            try context.expectPairs(
                batched.scans[index], try transaction.scan(scan.range, limit: scan.limit, reverse: scan.reverse),
                "the batched scan of \(scan.range) (limit \(scan.limit), reverse \(scan.reverse))")
        }
    }

    static let batchMatchesSeparateReads = ConformanceCase(
        "kv.batch.matchesSeparateReads",
        "Keys and scans read together answer, in their order, what each read alone answers: values "
            + "of present and missing keys, forward, reverse, limited and empty scans."
    ) { context in
        let backend = try context.open()
        context.step("store b00 … b11")
        try context.put(backend, batchPairs)
        context.step("read five keys and six scans together, then each alone, in one read body")
        try context.must("the read body succeeds") {
            try backend.read { transaction in
                let batched = try transaction.getMany(batchKeys, scanning: batchScans)
                try expectSameReads(batched, transaction, context)
                try context.expectValue(batched.values[0], .utf8("v03"), "the value of b03")
                try context.expectEqual(batched.scans[0].count, 12, "the pairs of prefix b")
                try context.expectKeys(
                    batched.scans[1], [.utf8("b08"), .utf8("b07"), .utf8("b06")], "the reverse scan")
            }
        }
        context.step("only scans, then only keys")
        try context.must("the read body succeeds") {
            try backend.read { transaction in
                let scansOnly = try transaction.getMany([], scanning: batchScans)
                try context.expectEqual(scansOnly.values.count, 0, "values of no keys")
                try context.expectPairs(scansOnly.scans[5], Array(batchPairs.prefix(4)), "the first four pairs")
                let keysOnly = try transaction.getMany(batchKeys, scanning: [])
                try context.expectEqual(keysOnly.scans.count, 0, "scans of none")
                try context.expectValue(keysOnly.values[2], .utf8("v11"), "the value of b11")
            }
        }
    }

    static let batchSeesOwnWrites = ConformanceCase(
        "kv.batch.seesOwnWrites",
        "Inside a write body, keys and scans read together see the body's earlier sets, clears and "
            + "clearRanges, in ranges the writes touch and ranges they do not, and the commit keeps them."
    ) { context in
        let backend = try context.open()
        context.step("store b00 … b11")
        try context.put(backend, batchPairs)
        context.step("in one write body: set b03 and b055, clear b11, clearRange [b07, b09), read together")
        try context.must("the write body commits") {
            try backend.write { transaction in
                try transaction.set(.utf8("b03"), .utf8("new"))
                try transaction.set(.utf8("b055"), .utf8("added"))
                try transaction.clear(.utf8("b11"))
                try transaction.clearRange(KeyRange(from: .utf8("b07"), to: .utf8("b09")))
                let batched = try transaction.getMany(batchKeys, scanning: batchScans)
                try expectSameReads(batched, transaction, context)
                try context.expectValue(batched.values[0], .utf8("new"), "b03 as the body set it")
                try context.expectValue(batched.values[2], nil, "b11, cleared by the body")
                try context.expectKeys(
                    batched.scans[1], [.utf8("b06"), .utf8("b055"), .utf8("b05")], "the reverse scan of [b02, b09)")
                try context.expectEqual(batched.scans[0].count, 10, "the pairs of prefix b after the body's writes")
            }
        }
        context.step("after the commit, a batched read sees the same")
        try context.must("the read body succeeds") {
            try backend.read { transaction in
                let batched = try transaction.getMany(batchKeys, scanning: batchScans)
                try expectSameReads(batched, transaction, context)
                try context.expectEqual(batched.scans[0].count, 10, "the pairs of prefix b")
            }
        }
    }
}
