import StratusBackend

extension KeyValueCases {
    /// `kv.basic.*`: get, set, overwrite and clear of single keys.
    static var basic: [ConformanceCase] {
        [getMissingKey, setThenGet, overwrite, clear, emptyValue, binaryData, largeValue]
    }

    static let getMissingKey = ConformanceCase(
        "kv.basic.getMissingKey",
        "get returns nil for a key never stored, in an empty store and next to stored keys."
    ) { context in
        let backend = try context.open()
        context.step("get a key of an empty store")
        try context.expectValue(try context.get(backend, .utf8("missing")), nil, "get(\"missing\")")

        context.step("store \"a\" and \"c\", then get \"b\", \"a\\0\" and the empty key")
        try context.put(backend, [KeyValuePair("a", "1"), KeyValuePair("c", "3")])
        try context.expectValue(try context.get(backend, .utf8("b")), nil, "get(\"b\")")
        try context.expectValue(try context.get(backend, .utf8("a") + [0]), nil, "get(\"a\\0\")")
        try context.expectValue(try context.get(backend, []), nil, "get(empty key)")
    }

    static let setThenGet = ConformanceCase(
        "kv.basic.setThenGet",
        "A value stored in one write transaction is returned by get in a later read transaction."
    ) { context in
        let backend = try context.open()
        context.step("store three keys in one write transaction")
        let pairs = [KeyValuePair("k1", "one"), KeyValuePair("k2", "two"), KeyValuePair("k3", "3")]
        try context.put(backend, pairs)

        context.step("get each key in a new read transaction")
        for pair in pairs {
            try context.expectValue(
                try context.get(backend, pair.key), pair.value,
                "get(\(ByteText.describe(pair.key)))")
        }
    }

    static let overwrite = ConformanceCase(
        "kv.basic.overwrite",
        "Setting a stored key replaces its value, by a shorter, longer or equal one, and keeps a "
            + "single entry for it."
    ) { context in
        let backend = try context.open()
        context.step("store k = \"first\"")
        try context.put(backend, [KeyValuePair("k", "first")])

        for value in ["a much longer second value", "3rd", "3rd", ""] {
            context.step("overwrite k with \(ByteText.describe(.utf8(value)))")
            try context.put(backend, [KeyValuePair("k", value)])
            try context.expectValue(try context.get(backend, .utf8("k")), .utf8(value), "get(\"k\")")
            try context.expectPairs(
                try context.scan(backend, .everything), [KeyValuePair("k", value)],
                "every pair stored")
        }
    }

    static let clear = ConformanceCase(
        "kv.basic.clear",
        "clear removes exactly one key; clearing a missing key is not an error and changes "
            + "nothing."
    ) { context in
        let backend = try context.open()
        context.step("store a, b, b\\0, c")
        let a = KeyValuePair("a", "1")
        let b = KeyValuePair("b", "2")
        let bZero = KeyValuePair(key: .utf8("b") + [0], value: .utf8("2.5"))
        let c = KeyValuePair("c", "3")
        try context.put(backend, [a, b, bZero, c])

        context.step("clear b")
        try context.must("clear(\"b\") commits") { try backend.write { try $0.clear(.utf8("b")) } }
        try context.expectValue(try context.get(backend, .utf8("b")), nil, "get(\"b\") after clear")
        try context.expectPairs(
            try context.scan(backend, .everything), [a, bZero, c], "every pair after clear(\"b\")")

        context.step("clear missing keys: b again, bb, and the empty key")
        try context.must("clearing missing keys commits") {
            try backend.write { transaction in
                try transaction.clear(.utf8("b"))
                try transaction.clear(.utf8("bb"))
                try transaction.clear([])
            }
        }
        try context.expectPairs(
            try context.scan(backend, .everything), [a, bZero, c],
            "every pair after clearing missing keys")
    }

    static let emptyValue = ConformanceCase(
        "kv.basic.emptyValue",
        "An empty value is stored and returned as an empty value, never confused with a "
            + "missing key; the empty key is a key like any other."
    ) { context in
        let backend = try context.open()
        context.step("store e = empty value, and the empty key = \"root\"")
        try context.put(
            backend, [KeyValuePair("e", ""), KeyValuePair(key: [], value: .utf8("root"))])
        try context.expectValue(try context.get(backend, .utf8("e")), [], "get(\"e\")")
        try context.expectValue(try context.get(backend, []), .utf8("root"), "get(empty key)")
        try context.expectPairs(
            try context.scan(backend, .everything),
            [KeyValuePair(key: [], value: .utf8("root")), KeyValuePair("e", "")],
            "every pair stored")

        context.step("clear the empty key")
        try context.must("clear(empty key) commits") { try backend.write { try $0.clear([]) } }
        try context.expectValue(try context.get(backend, []), nil, "get(empty key) after clear")
        try context.expectValue(try context.get(backend, .utf8("e")), [], "get(\"e\") after clear")
    }

    static let binaryData = ConformanceCase(
        "kv.basic.binaryData",
        "Keys and values may hold any bytes, 0x00 included (no C-string truncation, no text "
            + "encoding)."
    ) { context in
        let backend = try context.open()
        let everyByte = (0...255).map { UInt8($0) }
        let pairs = [
            KeyValuePair(key: [0x00], value: [0x00, 0x00]),
            KeyValuePair(key: [0x00, 0x00, 0x01], value: everyByte),
            KeyValuePair(key: everyByte, value: [0xC3, 0x28, 0xFF, 0xFE]),  // invalid UTF-8
            KeyValuePair(key: [0x01, 0x00, 0xFF], value: everyByte.reversed()),
        ]  // in key order
        context.step("store keys and values holding 0x00, every byte, and invalid UTF-8")
        try context.put(backend, pairs)

        context.step("read them back")
        for pair in pairs {
            try context.expectValue(
                try context.get(backend, pair.key), pair.value,
                "get(\(ByteText.describe(pair.key)))")
        }
        try context.expectPairs(
            try context.scan(backend, .everything), pairs, "every pair stored, in order")
    }

    static let largeValue = ConformanceCase(
        "kv.basic.largeValue",
        "A 1 MiB value is stored and returned byte for byte."
    ) { context in
        let backend = try context.open()
        // Bytes that never repeat with a short period, so a shifted or truncated copy differs.
        let value = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        context.step("store a 1 MiB value")
        try context.put(backend, [KeyValuePair(key: .utf8("big"), value: value)])

        context.step("get it back")
        let stored = try context.get(backend, .utf8("big"))
        try context.expect(
            stored == value, "get(\"big\") returns the 1 MiB value unchanged",
            actual: "\(stored.map { "\($0.count) bytes, differing" } ?? "nil")")
    }
}
