import StratusBackend

extension KeyValueCases {
    /// `kv.ordering.*`: keys sort as unsigned byte strings (`memcmp` order).
    static var ordering: [ConformanceCase] {
        [unsignedBytes, longKeys]
    }

    static let unsignedBytes = ConformanceCase(
        "kv.ordering.unsignedBytes",
        "Keys sort as unsigned bytes (0x80 after 0x7F, 0xFF last), a key before every longer key "
            + "it prefixes, and the empty key first, in forward and reverse scans."
    ) { context in
        // Already in the required order.
        let sorted: [[UInt8]] = [
            [], [0x00], [0x00, 0x00], [0x00, 0x01], [0x01], [0x41], [0x41, 0x00], [0x41, 0x42],
            [0x41, 0x42, 0x00], [0x42], [0x7F], [0x7F, 0xFF], [0x80], [0x80, 0x00], [0xFE, 0xFF],
            [0xFF], [0xFF, 0x00], [0xFF, 0xFF], [0xFF, 0xFF, 0xFF],
        ]
        let backend = try context.open()
        context.step("write \(sorted.count) keys in a scrambled order, each valued by its rank")
        let pairs = sorted.enumerated().map { KeyValuePair(key: $1, value: .uint64(UInt64($0))) }
        try context.put(backend, pairs.scrambled())

        context.step("scan every key forward")
        let forward = try context.scan(backend, .everything)
        try context.expectKeys(forward, sorted, "the keys in ascending unsigned-byte order")
        try context.expectPairs(forward, pairs, "each key with its own value")

        context.step("scan every key in reverse")
        let reverse = try context.scan(backend, .everything, reverse: true)
        try context.expectKeys(reverse, sorted.reversed(), "the keys in descending order")

        context.step("read every key back, the empty key included")
        for pair in pairs {
            try context.expectValue(
                try context.get(backend, pair.key), pair.value,
                "get(\(ByteText.describe(pair.key)))")
        }
    }

    static let longKeys = ConformanceCase(
        "kv.ordering.longKeys",
        "Keys of 1,000 and 2,000 bytes that differ only at their ends are stored, read and "
            + "ordered in full, never truncated."
    ) { context in
        let base = [UInt8](repeating: 0x61, count: 1_000)
        // Already in the required order.
        let sorted: [[UInt8]] = [
            base,
            base + [0x00],
            base + [0x01],
            base + base,
            [UInt8](repeating: 0x61, count: 999) + [0x62],
        ]
        let backend = try context.open()
        context.step("write 5 long keys in reverse order")
        let pairs = sorted.enumerated().map { KeyValuePair(key: $1, value: .uint64(UInt64($0))) }
        try context.put(backend, pairs.reversed())

        context.step("scan them forward and in reverse")
        try context.expectPairs(
            try context.scan(backend, .everything), pairs, "the long keys in ascending order")
        try context.expectKeys(
            try context.scan(backend, .everything, reverse: true), sorted.reversed(),
            "the long keys in descending order")

        context.step("read each long key back")
        for pair in pairs {
            try context.expectValue(
                try context.get(backend, pair.key), pair.value,
                "get(\(ByteText.describe(pair.key)))")
        }
    }
}
