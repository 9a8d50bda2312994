import Foundation
import StratusBackend

extension KeyValueCases {
    /// `kv.isolation.*`: snapshot reads and serializable writes under real concurrency, over
    /// two handles on one storage.
    static var isolation: [ConformanceCase] {
        [commitVisibleToLaterReads, snapshotRead, noLostUpdates, writeSkew]
    }

    static let commitVisibleToLaterReads = ConformanceCase(
        "kv.isolation.commitVisibleToLaterReads",
        "Once write returns, every later read sees the write, through the same handle and "
            + "through another handle open on the same storage."
    ) { context in
        let first = try context.open()
        let second = try context.open()
        context.step("write a=1 through the first handle")
        try context.put(first, [KeyValuePair("a", "1")])
        try context.expectValue(
            try context.get(first, .utf8("a")), .utf8("1"), "get(\"a\") through the first handle")
        try context.expectValue(
            try context.get(second, .utf8("a")), .utf8("1"),
            "get(\"a\") through the second handle")

        context.step("write b=2 and clear a through the second handle")
        try context.must("the write commits") {
            try second.write { transaction in
                try transaction.set(.utf8("b"), .utf8("2"))
                try transaction.clear(.utf8("a"))
            }
        }
        try context.expectPairs(
            try context.scan(first, .everything), [KeyValuePair("b", "2")],
            "every pair, through the first handle")
    }

    static let snapshotRead = ConformanceCase(
        "kv.isolation.snapshotRead",
        "A read transaction sees all or nothing of each concurrent write: while one thread "
            + "keeps committing writes that set 8 keys to the same new number, 2,000 read "
            + "transactions on another handle and thread never see two numbers at once."
    ) { context in
        let writer = try context.open()
        let reader = try context.open()
        let keys: [[UInt8]] = (0..<8).map { .utf8("pair/\($0)") }
        let reads = 2_000
        context.step("store the 8 keys pair/0 … pair/7, all 0")
        try context.put(writer, keys.map { KeyValuePair(key: $0, value: .uint64(0)) })

        context.step(
            "read the 8 keys \(reads) times through a second handle, while another thread "
                + "commits writes setting all of them to the next number")
        let readerDone = SharedFlag()
        let lastRound = SharedCounter()
        try await context.onThreads(2) { index in
            if index == 0 {
                // The writer: keeps going until the reader is done.
                var round: UInt64 = 0
                while !readerDone.isRaised {
                    round += 1
                    try context.writeRetrying(writer) { transaction in
                        for key in keys { try transaction.set(key, .uint64(round)) }
                    }
                    lastRound.value = round
                }
                return
            }
            defer { readerDone.raise() }
            // Start reading once the writer is under way.
            let start = ContinuousClock.now
            while lastRound.value == 0 {
                guard ContinuousClock.now - start < .seconds(10) else {
                    throw context.failure(
                        expected: "the writer commits within 10 s", actual: "no commit yet")
                }
                Thread.sleep(forTimeInterval: 0.000_1)
            }
            for read in 1...reads {
                // The first key, a scan of all 8, then the last key: one transaction.
                let (first, scanned, last) = try reader.read { transaction in
                    let first = try transaction.get(keys[0])
                    if read % 8 == 0 {
                        // Now and then, give the writer time to commit in the middle of a read.
                        Thread.sleep(forTimeInterval: 0.000_02)
                    }
                    let scanned = try transaction.scan(KeyRange(prefix: .utf8("pair/")), limit: 100)
                    let last = try transaction.get(keys[7])
                    return (first, scanned, last)
                }
                let values = [first] + scanned.map(\.value) + [last]
                try context.expect(
                    scanned.map(\.key) == keys && values.allSatisfy({ $0 == first }),
                    "every read transaction sees the 8 keys at one number",
                    actual: "read #\(read) saw get(pair/0) = \(Self.number(first)), scan = "
                        + "\(scanned.map { Self.number($0.value) }), get(pair/7) = \(Self.number(last))")
            }
        }

        context.step("read the final state")
        try context.expectPairs(
            try context.scan(reader, KeyRange(prefix: .utf8("pair/"))),
            keys.map { KeyValuePair(key: $0, value: .uint64(lastRound.value)) },
            "the 8 keys after the last write")
    }

    /// The number 8 bytes encode, or a description of what is there instead.
    private static func number(_ bytes: [UInt8]?) -> String {
        guard let bytes else { return "nil" }
        return bytes.uint64.map(String.init) ?? ByteText.describe(bytes)
    }

    static let noLostUpdates = ConformanceCase(
        "kv.isolation.noLostUpdates",
        "4 threads on 2 handles each increment one counter 50 times in read-modify-write "
            + "transactions (retried on .conflict and .busy); the counter ends at 200."
    ) { context in
        let threads = 4
        let increments = 50
        let handles = [try context.open(), try context.open()]
        let counter: [UInt8] = .utf8("counter")
        context.step("store counter = 0")
        try context.put(handles[0], [KeyValuePair(key: counter, value: .uint64(0))])

        context.step(
            "\(threads) threads each add 1 to the counter \(increments) times, reading it, "
                + "pausing, then writing it back")
        try await context.onThreads(threads) { index in
            let backend = handles[index % handles.count]
            for _ in 0..<increments {
                try context.writeRetrying(backend) { transaction in
                    let stored = try transaction.get(counter)
                    guard let current = stored?.uint64 else {
                        throw context.failure(
                            expected: "the counter holds 8 bytes",
                            actual: ByteText.describe(stored))
                    }
                    // Widen the window in which a non-serializable backend loses an update.
                    Thread.sleep(forTimeInterval: 0.000_02)
                    try transaction.set(counter, .uint64(current + 1))
                }
            }
        }

        context.step("read the counter")
        let expected = UInt64(threads * increments)
        let final = try context.get(handles[1], counter)?.uint64
        try context.expect(
            final == expected,
            "counter == \(expected) (\(threads) threads × \(increments) increments, none lost)",
            actual: final.map { "\($0) (\(Int64(expected) - Int64($0)) increments lost)" } ?? "nil")
    }

    static let writeSkew = ConformanceCase(
        "kv.isolation.writeSkew",
        "Two concurrent transactions each read keys x and y (both 1) and set their own key to 0 "
            + "only if x + y ≥ 2; as in any serial order, exactly one of them does (no write skew)."
    ) { context in
        let rounds = 30
        let handles = [try context.open(), try context.open()]
        let x: [UInt8] = .utf8("oncall/x")
        let y: [UInt8] = .utf8("oncall/y")
        context.step(
            "\(rounds) rounds: store x = 1, y = 1; then two threads on two handles each run "
                + "'if x + y >= 2 { set own key to 0 }'")
        for round in 1...rounds {
            try context.put(
                handles[0],
                [KeyValuePair(key: x, value: .uint64(1)), KeyValuePair(key: y, value: .uint64(1))])
            try await context.onThreads(2) { index in
                try context.writeRetrying(handles[index]) { transaction in
                    let sum = (try transaction.get(x)?.uint64 ?? 0) + (try transaction.get(y)?.uint64 ?? 0)
                    // Let the other transaction read both keys too, if the backend allows it.
                    Thread.sleep(forTimeInterval: 0.000_2)
                    if sum >= 2 { try transaction.set(index == 0 ? x : y, .uint64(0)) }
                }
            }
            let (valueX, valueY) = try context.must("reading x and y succeeds") {
                try handles[1].read { (try $0.get(x)?.uint64, try $0.get(y)?.uint64) }
            }
            let total = valueX.flatMap { valueX in valueY.map { valueX + $0 } }
            try context.expect(
                total == 1,
                "exactly one transaction set its key to 0 (x + y == 1)",
                actual: "round \(round) ended with x = \(valueX.map(String.init) ?? "nil"), "
                    + "y = \(valueY.map(String.init) ?? "nil")")
        }
    }
}
