import Foundation
import StratusBackend

extension ConformanceContext {
    /// Every pair stored, read through `backend` in one transaction, in key order.
    func allPairs(_ backend: any DatabaseBackend) throws -> [KeyValuePair] {
        try must("a read transaction scanning every key succeeds") {
            try backend.read { try $0.scan(.everything, limit: Int(Int32.max)) }
        }
    }

    /// Fails unless `actual` holds exactly the pairs of `expected`, in the same order.
    func expectPairs(
        _ actual: [KeyValuePair], _ expected: [KeyValuePair], _ what: @autoclosure () -> String
    ) throws {
        guard actual != expected else { return }
        var detail = ByteText.describe(pairs: actual)
        if let index = zip(actual, expected).enumerated().first(where: { $1.0 != $1.1 })?.offset {
            detail +=
                "; first difference at position \(index): "
                + ByteText.describe(pairs: [actual[index]]) + " instead of "
                + ByteText.describe(pairs: [expected[index]])
        } else {
            detail += "; \(actual.count) pairs instead of \(expected.count)"
        }
        throw failure(
            expected: "\(what()) == \(ByteText.describe(pairs: expected))", actual: detail)
    }

    /// Fails unless `actual` lists exactly the keys of `expected`, in the same order.
    func expectKeys(
        _ actual: [KeyValuePair], _ expected: [[UInt8]], _ what: @autoclosure () -> String
    ) throws {
        let keys = actual.map(\.key)
        guard keys != expected else { return }
        throw failure(
            expected: "\(what()) == \(ByteText.describe(keys: expected))",
            actual: ByteText.describe(keys: keys))
    }

    /// Fails unless `actual` is `expected` (both possibly `nil`).
    func expectValue(
        _ actual: [UInt8]?, _ expected: [UInt8]?, _ what: @autoclosure () -> String
    ) throws {
        guard actual != expected else { return }
        throw failure(
            expected: "\(what()) == \(ByteText.describe(expected))",
            actual: ByteText.describe(actual))
    }

    /// Runs `body` in a write transaction of `backend`, running it again while the backend
    /// reports a retryable conflict (`.conflict` or `.busy`), as the engine does.
    func writeRetrying<T>(
        _ backend: any DatabaseBackend, maxAttempts: Int = 10_000,
        _ body: (any BackendWriteTransaction) throws -> T
    ) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try backend.write(body)
            } catch let error as BackendError where error.code == .conflict || error.code == .busy {
                guard attempt < maxAttempts else {
                    throw failure(
                        expected: "the write commits within \(maxAttempts) attempts",
                        actual: "attempt \(attempt) still failed: \(error)")
                }
                // Back off a little, more after repeated conflicts.
                Thread.sleep(forTimeInterval: 0.000_05 * Double(Swift.min(attempt, 20)))
            }
        }
    }
}

extension ConformanceContext {
    /// Stores `pairs` through `backend` in one write transaction.
    func put(_ backend: any DatabaseBackend, _ pairs: [KeyValuePair]) throws {
        try must("a write transaction storing \(pairs.count) pairs commits") {
            try backend.write { transaction in
                for pair in pairs { try transaction.set(pair.key, pair.value) }
            }
        }
    }

    /// Scans `range` through `backend` in one read transaction.
    func scan(
        _ backend: any DatabaseBackend, _ range: KeyRange, limit: Int = 1_000_000,
        reverse: Bool = false
    ) throws -> [KeyValuePair] {
        try must("scan \(range) limit \(limit)\(reverse ? " reverse" : "") succeeds") {
            try backend.read { try $0.scan(range, limit: limit, reverse: reverse) }
        }
    }

    /// Reads `key` through `backend` in one read transaction.
    func get(_ backend: any DatabaseBackend, _ key: [UInt8]) throws -> [UInt8]? {
        try must("get \(ByteText.describe(key)) succeeds") {
            try backend.read { try $0.get(key) }
        }
    }
}
