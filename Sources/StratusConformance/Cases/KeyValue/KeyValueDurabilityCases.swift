import StratusBackend

extension KeyValueCases {
    /// `kv.durability.*`: what `write` committed survives closing the handle and opening a
    /// new one on the same storage; what it aborted never appears.
    static var durability: [ConformanceCase] {
        [reopen, abortedNotVisibleAfterReopen]
    }

    /// An error a case body throws to abort a write.
    private struct AbortWrite: Error {}

    static let reopen = ConformanceCase(
        "kv.durability.reopen",
        "After several committed writes (sets, overwrites, clears, clearRange), closing the "
            + "handle and opening a new one on the storage shows exactly the committed data, the "
            + "last write included."
    ) { context in
        let first = try context.open()
        context.step("write k1 … k5")
        try context.put(first, (1...5).map { KeyValuePair("k\($0)", "v\($0)") })

        context.step("overwrite k2 and clear k3")
        try context.must("the write commits") {
            try first.write { transaction in
                try transaction.set(.utf8("k2"), .utf8("v2 again"))
                try transaction.clear(.utf8("k3"))
            }
        }
        context.step("clearRange [k4, k5)")
        try context.must("the write commits") {
            try first.write { try $0.clearRange(KeyRange(from: .utf8("k4"), to: .utf8("k5"))) }
        }
        context.step("as the last write: overwrite k1 and add last")
        try context.must("the write commits") {
            try first.write { transaction in
                try transaction.set(.utf8("k1"), .utf8("v1 final"))
                try transaction.set(.utf8("last"), .utf8("the last write"))
            }
        }
        let expected = [
            KeyValuePair("k1", "v1 final"), KeyValuePair("k2", "v2 again"),
            KeyValuePair("k5", "v5"), KeyValuePair("last", "the last write"),
        ]
        try context.expectPairs(
            try context.allPairs(first), expected, "every pair before closing")

        context.step("close the handle and open a new one on the same storage")
        try context.close(first)
        let reopened = try context.open()
        try context.expectPairs(
            try context.allPairs(reopened), expected, "every pair after reopening")

        context.step("write through the new handle, close and reopen again")
        try context.put(reopened, [KeyValuePair("after", "reopen")])
        try context.close(reopened)
        let again = try context.open()
        try context.expectPairs(
            try context.allPairs(again), [KeyValuePair("after", "reopen")] + expected,
            "every pair after the second reopen")
    }

    static let abortedNotVisibleAfterReopen = ConformanceCase(
        "kv.durability.abortedNotVisibleAfterReopen",
        "Writes whose bodies threw leave no trace, even after closing the handle and opening a "
            + "new one on the storage."
    ) { context in
        let first = try context.open()
        let committed = [KeyValuePair("a", "1"), KeyValuePair("b", "2"), KeyValuePair("c", "3")]
        context.step("commit a=1, b=2, c=3")
        try context.put(first, committed)

        context.step("abort two writes: one changing every key, one clearing everything")
        for clearEverything in [false, true] {
            do {
                try first.write { transaction in
                    if clearEverything {
                        try transaction.clearRange(.everything)
                    } else {
                        try transaction.set(.utf8("a"), .utf8("changed"))
                        try transaction.clear(.utf8("b"))
                        try transaction.set(.utf8("d"), .utf8("new"))
                    }
                    throw AbortWrite()
                }
                throw context.failure(
                    expected: "write rethrows the body's error", actual: "write returned")
            } catch is AbortWrite {
                // Expected.
            }
        }

        context.step("close the handle and open a new one on the same storage")
        try context.close(first)
        let reopened = try context.open()
        try context.expectPairs(
            try context.allPairs(reopened), committed, "every pair after reopening")
    }
}
