import StratusBackend

extension KeyValueCases {
    /// `kv.scan.*`: range scans with half-open bounds, limits and reverse order, and
    /// `clearRange`.
    static var scan: [ConformanceCase] {
        [
            halfOpenBounds, limit, reverse, reverseWithLimit, emptyRanges, prefix, clearRange,
            largeRange, lending,
        ]
    }

    /// A range from the UTF-8 bytes of `lower` to those of `upper`.
    private static func range(_ lower: String, _ upper: String) -> KeyRange {
        KeyRange(from: .utf8(lower), to: .utf8(upper))
    }

    /// Twenty pairs `k00` … `k19`, each valued `v00` … `v19`.
    private static let twentyPairs = (0..<20).map { index in
        let digits = index < 10 ? "0\(index)" : "\(index)"
        return KeyValuePair("k" + digits, "v" + digits)
    }

    static let halfOpenBounds = ConformanceCase(
        "kv.scan.halfOpenBounds",
        "A scan returns the keys from its lower bound (included) up to its upper bound "
            + "(excluded), whether or not the bounds are stored keys."
    ) { context in
        let backend = try context.open()
        let keys = ["a", "b", "ba", "c", "d", "e"]
        context.step("store \(keys)")
        try context.put(backend, keys.map { KeyValuePair($0, "v" + $0) })

        let checks: [(KeyRange, [String])] = [
            (range("b", "d"), ["b", "ba", "c"]),
            (range("ab", "cz"), ["b", "ba", "c"]),
            (range("b", "ba"), ["b"]),
            (range("ba", "c"), ["ba"]),
            (range("a", "b"), ["a"]),
            (range("", "a"), []),
            (range("c", "c\u{0}"), ["c"]),
            (KeyRange(from: .utf8("e"), to: KeyRange.everything.upperBound), ["e"]),
        ]
        for (range, expected) in checks {
            context.step("scan \(range) forward")
            try context.expectPairs(
                try context.scan(backend, range), expected.map { KeyValuePair($0, "v" + $0) },
                "the pairs of \(range)")
        }
    }

    static let limit = ConformanceCase(
        "kv.scan.limit",
        "A scan returns the first `limit` keys of its range, or all of them when there are fewer."
    ) { context in
        let backend = try context.open()
        context.step("store k00 … k19")
        try context.put(backend, twentyPairs)

        for limit in [1, 5, 19, 20, 21, 1_000] {
            context.step("scan everything with limit \(limit)")
            try context.expectPairs(
                try context.scan(backend, .everything, limit: limit),
                Array(twentyPairs.prefix(limit)), "the first \(limit) pairs")
        }
        for limit in [1, 3, 10, 11] {
            context.step("scan [k05, k15) with limit \(limit)")
            try context.expectPairs(
                try context.scan(backend, range("k05", "k15"), limit: limit),
                Array(twentyPairs[5..<15].prefix(limit)),
                "the first \(limit) pairs of [k05, k15)")
        }
    }

    static let reverse = ConformanceCase(
        "kv.scan.reverse",
        "A reverse scan returns the keys of its range in descending order, upper bound excluded "
            + "and lower bound included."
    ) { context in
        let backend = try context.open()
        context.step("store k00 … k19")
        try context.put(backend, twentyPairs)

        context.step("scan everything in reverse")
        try context.expectPairs(
            try context.scan(backend, .everything, reverse: true), twentyPairs.reversed(),
            "every pair, descending")

        context.step("scan [k05, k15) in reverse")
        try context.expectPairs(
            try context.scan(backend, range("k05", "k15"), reverse: true),
            twentyPairs[5..<15].reversed(), "k14 down to k05")

        context.step("scan [k05\\0, k10\\0) in reverse (bounds between stored keys)")
        try context.expectPairs(
            try context.scan(backend, range("k05\u{0}", "k10\u{0}"), reverse: true),
            twentyPairs[6...10].reversed(), "k10 down to k06")
    }

    static let reverseWithLimit = ConformanceCase(
        "kv.scan.reverseWithLimit",
        "A reverse scan with a limit returns the last `limit` keys of its range, in descending "
            + "order."
    ) { context in
        let backend = try context.open()
        context.step("store k00 … k19")
        try context.put(backend, twentyPairs)

        for limit in [1, 3, 10, 11] {
            context.step("scan [k05, k15) in reverse with limit \(limit)")
            try context.expectPairs(
                try context.scan(backend, range("k05", "k15"), limit: limit, reverse: true),
                Array(twentyPairs[5..<15].reversed().prefix(limit)),
                "the last \(limit) pairs of [k05, k15), descending")
        }
        context.step("scan everything in reverse with limit 1")
        try context.expectPairs(
            try context.scan(backend, .everything, limit: 1, reverse: true),
            [twentyPairs[19]], "the last pair")
    }

    static let emptyRanges = ConformanceCase(
        "kv.scan.emptyRanges",
        "Scans of an empty store, of an empty or inverted range, and of a range between, before "
            + "or after the stored keys return nothing, in both directions."
    ) { context in
        let backend = try context.open()
        for reverse in [false, true] {
            context.step("scan an empty store, reverse: \(reverse)")
            try context.expectPairs(
                try context.scan(backend, .everything, reverse: reverse), [], "no pair")
        }
        context.step("store a, b, c")
        try context.put(backend, ["a", "b", "c"].map { KeyValuePair($0, $0) })
        let ranges = [
            range("b", "b"),  // empty
            range("c", "a"),  // inverted
            range("b\u{0}", "c"),  // between stored keys
            range("", "a"),  // before the first key
            range("c\u{0}", "z"),  // after the last key
        ]
        for range in ranges {
            for reverse in [false, true] {
                context.step("scan \(range), reverse: \(reverse)")
                try context.expectPairs(
                    try context.scan(backend, range, reverse: reverse), [], "no pair")
            }
        }
    }

    static let prefix = ConformanceCase(
        "kv.scan.prefix",
        "A KeyRange(prefix:) scan returns exactly the keys starting with the prefix, the prefix "
            + "itself and keys continuing with 0xFF included, also for an all-0xFF prefix."
    ) { context in
        let backend = try context.open()
        let ab: [UInt8] = .utf8("ab")
        let inside: [[UInt8]] = [ab, ab + [0x00], ab + .utf8("c"), ab + [0xFF], ab + [0xFF, 0xFF]]
        let outside: [[UInt8]] = [.utf8("a"), .utf8("aa"), .utf8("ac"), .utf8("b")]
        let ffInside: [[UInt8]] = [[0xFF], [0xFF, 0x00], [0xFF, 0xFF], [0xFF, 0xFF, 0xFF]]
        context.step("store keys inside and outside the prefixes \"ab\" and 0xFF")
        let all = (inside + outside + ffInside + [[0xFE, 0xFF]])
        try context.put(backend, all.map { KeyValuePair(key: $0, value: $0) })

        context.step("scan the prefix \"ab\" forward and in reverse")
        try context.expectKeys(
            try context.scan(backend, KeyRange(prefix: ab)), inside, "the keys starting \"ab\"")
        try context.expectKeys(
            try context.scan(backend, KeyRange(prefix: ab), reverse: true), inside.reversed(),
            "the keys starting \"ab\", descending")

        context.step("scan the prefix 0xFF forward and in reverse")
        try context.expectKeys(
            try context.scan(backend, KeyRange(prefix: [0xFF])), ffInside,
            "the keys starting 0xFF")
        try context.expectKeys(
            try context.scan(backend, KeyRange(prefix: [0xFF]), reverse: true),
            ffInside.reversed(), "the keys starting 0xFF, descending")
    }

    static let clearRange = ConformanceCase(
        "kv.scan.clearRange",
        "clearRange removes exactly the keys of its half-open range and nothing else; an empty or "
            + "inverted range removes nothing."
    ) { context in
        let backend = try context.open()
        func pairs(_ keys: [String]) -> [KeyValuePair] { keys.map { KeyValuePair($0, "v" + $0) } }
        context.step("store a, b, ba, bb, c, d, e")
        try context.put(backend, pairs(["a", "b", "ba", "bb", "c", "d", "e"]))

        let steps: [(KeyRange, [String])] = [
            (range("a\u{0}", "b\u{0}"), ["a", "ba", "bb", "c", "d", "e"]),
            (range("ba", "c"), ["a", "c", "d", "e"]),
            (range("c", "c"), ["a", "c", "d", "e"]),
            (range("e", "a"), ["a", "c", "d", "e"]),
            (KeyRange(from: .utf8("d"), to: KeyRange.everything.upperBound), ["a", "c"]),
        ]
        for (range, remaining) in steps {
            context.step("clearRange \(range)")
            try context.must("clearRange \(range) commits") {
                try backend.write { try $0.clearRange(range) }
            }
            try context.expectPairs(
                try context.scan(backend, .everything), pairs(remaining), "every pair left")
        }
    }

    static let largeRange = ConformanceCase(
        "kv.scan.largeRange",
        "Paging through 10,000 keys with limit 100, forward and then in reverse, narrowing the "
            + "range past the last key received, returns each key exactly once, in order."
    ) { context in
        let backend = try context.open()
        let count = 10_000
        let prefix: [UInt8] = .utf8("k")
        let pairs = (0..<count).map { index in
            KeyValuePair(key: prefix + .uint64(UInt64(index)), value: .uint64(UInt64(index) * 3))
        }
        context.step("store 10,000 keys under \"k\" in a scrambled order, and neighbours")
        try context.put(
            backend,
            pairs.scrambled() + [KeyValuePair("j", "before"), KeyValuePair("l", "after")])

        context.step("page forward through the prefix \"k\" with limit 100")
        var forward: [KeyValuePair] = []
        var range = KeyRange(prefix: prefix)
        while true {
            let page = try context.scan(backend, range, limit: 100)
            try context.expect(
                page.count <= 100, "a page of at most 100 pairs", actual: "\(page.count) pairs")
            guard let last = page.last else { break }
            forward += page
            try context.expect(
                forward.count <= count, "at most \(count) pairs in all",
                actual: "\(forward.count) pairs so far")
            range.lowerBound = last.key + [0x00]
        }
        try context.expectPairs(forward, pairs, "the 10,000 pairs, ascending")

        context.step("page in reverse through the prefix \"k\" with limit 100")
        var backward: [KeyValuePair] = []
        range = KeyRange(prefix: prefix)
        while true {
            let page = try context.scan(backend, range, limit: 100, reverse: true)
            try context.expect(
                page.count <= 100, "a page of at most 100 pairs", actual: "\(page.count) pairs")
            guard let last = page.last else { break }
            backward += page
            try context.expect(
                backward.count <= count, "at most \(count) pairs in all",
                actual: "\(backward.count) pairs so far")
            range.upperBound = last.key
        }
        try context.expectPairs(backward, pairs.reversed(), "the 10,000 pairs, descending")
    }
}
