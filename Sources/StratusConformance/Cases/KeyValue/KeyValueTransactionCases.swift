import StratusBackend

extension KeyValueCases {
    /// `kv.write.*` and `kv.read.*`: what a transaction body sees, returns and throws.
    static var transactions: [ConformanceCase] {
        [readYourWrites, abortOnThrow, returnsBodyResult, readRethrowsBodyError]
    }

    /// An error only a case body throws, to check that the backend rethrows it unchanged.
    private struct BodyError: Error, Equatable {
        let token: Int
    }

    static let readYourWrites = ConformanceCase(
        "kv.write.readYourWrites",
        "Inside a write body, get and scan (forward, reverse, limited) see the body's earlier "
            + "sets, overwrites, clears and clearRanges, and the commit keeps exactly them."
    ) { context in
        let backend = try context.open()
        context.step("store a=1, b=2, c=3, d=4, da=5")
        try context.put(
            backend,
            [
                KeyValuePair("a", "1"), KeyValuePair("b", "2"), KeyValuePair("c", "3"),
                KeyValuePair("d", "4"), KeyValuePair("da", "5"),
            ])

        context.step("in one write body: overwrite b, add e, clear c, clearRange [d, e), read")
        let expected = [KeyValuePair("a", "1"), KeyValuePair("b", "20"), KeyValuePair("e", "50")]
        try context.must("the write body commits") {
            try backend.write { transaction in
                try transaction.set(.utf8("b"), .utf8("20"))
                try transaction.set(.utf8("e"), .utf8("50"))
                try transaction.clear(.utf8("c"))
                try transaction.clearRange(KeyRange(from: .utf8("d"), to: .utf8("e")))
                try context.expectValue(try transaction.get(.utf8("b")), .utf8("20"), "get(\"b\")")
                try context.expectValue(try transaction.get(.utf8("e")), .utf8("50"), "get(\"e\")")
                try context.expectValue(try transaction.get(.utf8("c")), nil, "get(\"c\")")
                try context.expectValue(try transaction.get(.utf8("da")), nil, "get(\"da\")")
                try context.expectPairs(
                    try transaction.scan(.everything, limit: 100), expected,
                    "a scan of everything inside the body")
                try context.expectPairs(
                    try transaction.scan(.everything, limit: 100, reverse: true),
                    expected.reversed(), "a reverse scan inside the body")
                try context.expectPairs(
                    try transaction.scan(.everything, limit: 2), Array(expected.prefix(2)),
                    "a scan with limit 2 inside the body")

                context.step("in the same body: set c again after clearing it, read again")
                try transaction.set(.utf8("c"), .utf8("30"))
                try context.expectValue(try transaction.get(.utf8("c")), .utf8("30"), "get(\"c\")")
                try context.expectKeys(
                    try transaction.scan(.everything, limit: 100),
                    [.utf8("a"), .utf8("b"), .utf8("c"), .utf8("e")],
                    "the keys inside the body")
            }
        }

        context.step("read after the commit")
        try context.expectPairs(
            try context.scan(backend, .everything),
            [
                KeyValuePair("a", "1"), KeyValuePair("b", "20"), KeyValuePair("c", "30"),
                KeyValuePair("e", "50"),
            ], "every pair committed")
    }

    static let abortOnThrow = ConformanceCase(
        "kv.write.abortOnThrow",
        "A write body that throws applies none of its sets, clears and clearRanges, the backend "
            + "rethrows the body's own error, and the next write works."
    ) { context in
        let backend = try context.open()
        let committed = [KeyValuePair("a", "1"), KeyValuePair("b", "2"), KeyValuePair("c", "3")]
        context.step("store a=1, b=2, c=3")
        try context.put(backend, committed)

        context.step("run a write body that changes every key, then throws")
        do {
            try backend.write { transaction in
                try transaction.set(.utf8("a"), .utf8("10"))
                try transaction.clear(.utf8("b"))
                try transaction.clearRange(KeyRange(prefix: .utf8("c")))
                try transaction.set(.utf8("d"), .utf8("4"))
                throw BodyError(token: 42)
            }
            throw context.failure(
                expected: "write rethrows the body's error", actual: "write returned normally")
        } catch let error as BodyError {
            try context.expectEqual(error, BodyError(token: 42), "the rethrown error")
        } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            throw context.failure(
                expected: "write rethrows the body's error BodyError(token: 42) unchanged",
                actual: "\(error)")
        }

        context.step("read after the aborted write")
        try context.expectPairs(
            try context.scan(backend, .everything), committed, "every pair (nothing applied)")

        context.step("run a normal write after the aborted one")
        try context.put(backend, [KeyValuePair("z", "26")])
        try context.expectPairs(
            try context.scan(backend, .everything), committed + [KeyValuePair("z", "26")],
            "every pair after the next write")
    }

    static let returnsBodyResult = ConformanceCase(
        "kv.write.returnsBodyResult",
        "write and read return what their bodies return."
    ) { context in
        let backend = try context.open()
        context.step("a write body returns a value")
        let written = try context.must("the write commits") {
            try backend.write { transaction -> String in
                try transaction.set(.utf8("k"), .utf8("v"))
                return "from write"
            }
        }
        try context.expectEqual(written, "from write", "the result of write")

        context.step("a read body returns a value")
        let read = try context.must("the read succeeds") {
            try backend.read { transaction -> [UInt8]? in try transaction.get(.utf8("k")) }
        }
        try context.expectValue(read, .utf8("v"), "the result of read")
    }

    static let readRethrowsBodyError = ConformanceCase(
        "kv.read.rethrowsBodyError",
        "A read body's error is rethrown unchanged, and later transactions work."
    ) { context in
        let backend = try context.open()
        context.step("a read body throws")
        do {
            _ = try backend.read { transaction -> Int in
                _ = try transaction.get(.utf8("k"))
                throw BodyError(token: 7)
            }
            throw context.failure(
                expected: "read rethrows the body's error", actual: "read returned normally")
        } catch let error as BodyError {
            try context.expectEqual(error, BodyError(token: 7), "the rethrown error")
        } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            throw context.failure(
                expected: "read rethrows the body's error BodyError(token: 7) unchanged",
                actual: "\(error)")
        }

        context.step("write and read after the failed read")
        try context.put(backend, [KeyValuePair("k", "v")])
        try context.expectValue(try context.get(backend, .utf8("k")), .utf8("v"), "get(\"k\")")
    }
}
