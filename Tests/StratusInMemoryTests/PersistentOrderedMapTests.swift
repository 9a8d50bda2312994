import StratusBackend
import StratusInMemory
import StratusTestSupport
import Testing

/// The persistent AVL tree, checked against ``SortedKeyValueModel`` with seeded random
/// operations, plus its structural guarantees (balance, snapshots, complexity).
@Suite struct PersistentOrderedMapTests {
    typealias Map = PersistentOrderedMap<[UInt8]>

    static let everything = KeyRange(prefix: [])

    /// Bytes that make interesting keys: both ends, both sides of the sign bit.
    static let alphabet: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]

    /// A short key over ``alphabet`` (possibly empty), so that operations often hit stored
    /// keys, their prefixes and their neighbours.
    static func randomKey(_ generator: inout SeededGenerator) -> [UInt8] {
        let length = Int.random(in: 0...4, using: &generator)
        return (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
    }

    /// A range between two random keys, sometimes empty or inverted.
    static func randomRange(_ generator: inout SeededGenerator) -> KeyRange {
        if Int.random(in: 0..<10, using: &generator) == 0 {
            return KeyRange(prefix: randomKey(&generator))
        }
        return KeyRange(from: randomKey(&generator), to: randomKey(&generator))
    }

    static func pairs(_ map: Map, _ range: KeyRange = everything, reverse: Bool = false)
        -> [KeyValuePair]
    {
        map.elements(in: range, reverse: reverse).map { KeyValuePair(key: $0.key, value: $0.value) }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomOperationsMatchTheSortedModel(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var map = Map()
        var model = SortedKeyValueModel()
        var snapshots: [(map: Map, model: SortedKeyValueModel)] = []

        for step in 0..<5_000 {
            let key = Self.randomKey(&generator)
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<45:
                let value = [UInt8(truncatingIfNeeded: step), UInt8(truncatingIfNeeded: step >> 8)]
                map.set(value, forKey: key)
                model.set(value, forKey: key)
            case 45..<70:
                map.remove(key)
                model.remove(key)
            case 70..<74:
                let range = Self.randomRange(&generator)
                map.removeAll(in: range)
                model.removeAll(in: range)
            default:
                let range = Self.randomRange(&generator)
                let limit = Int.random(in: 1...40, using: &generator)
                let reverse = Bool.random(using: &generator)
                let scanned = Array(Self.pairs(map, range, reverse: reverse).prefix(limit))
                try #require(
                    scanned == model.scan(range, limit: limit, reverse: reverse),
                    "step \(step): scan \(range) limit \(limit) reverse \(reverse)")
            }
            try #require(map.count == model.count, "step \(step): count")
            try #require(map.value(forKey: key) == model.value(forKey: key), "step \(step): get")
            if step % 250 == 0 {
                try #require(map.invariantViolation() == nil, "step \(step)")
                try #require(Self.pairs(map) == model.pairs, "step \(step): contents")
                snapshots.append((map, model))
            }
        }
        #expect(map.invariantViolation() == nil)
        #expect(Self.pairs(map) == model.pairs)
        #expect(Self.pairs(map, reverse: true) == model.pairs.reversed())
        // Every earlier version is untouched by everything that came after it.
        for (index, snapshot) in snapshots.enumerated() {
            #expect(Self.pairs(snapshot.map) == snapshot.model.pairs, "snapshot \(index)")
        }
    }

    @Test func staysBalancedWithSequentialAndRandomKeys() {
        var map = Map()
        for index in 0..<20_000 {
            map.set([], forKey: .bigEndian(UInt32(index)))
        }
        #expect(map.count == 20_000)
        #expect(map.invariantViolation() == nil)
        #expect(map.height <= 21)  // 1.44 log2(20,000) ≈ 20.6

        var generator = SeededGenerator(seed: 9)
        for _ in 0..<10_000 {
            map.remove(.bigEndian(UInt32.random(in: 0..<20_000, using: &generator)))
        }
        #expect(map.invariantViolation() == nil)
    }

    @Test(arguments: [0, 1, 2, 3] as [UInt64])
    func removeAllInRangeOnLargeTrees(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var map = Map()
        var model = SortedKeyValueModel()
        for _ in 0..<3_000 {
            let key = [UInt8].bigEndian(UInt32.random(in: 0..<5_000, using: &generator))
            map.set(key, forKey: key)
            model.set(key, forKey: key)
        }
        for _ in 0..<30 {
            let bounds = (0..<2).map { _ in UInt32.random(in: 0..<5_200, using: &generator) }
            let range = KeyRange(from: .bigEndian(bounds[0]), to: .bigEndian(bounds[1]))
            map.removeAll(in: range)
            model.removeAll(in: range)
            #expect(map.invariantViolation() == nil)
            #expect(map.count == model.count)
        }
        #expect(Self.pairs(map) == model.pairs)
    }

    @Test func scansStartAndStopAtTheBounds() {
        var map = Map()
        for index in stride(from: 0, to: 100, by: 2) {  // even numbers only
            map.set([UInt8(index)], forKey: [UInt8(index)])
        }
        let range = KeyRange(from: [11], to: [21])
        #expect(Self.pairs(map, range).map(\.key) == [[12], [14], [16], [18], [20]])
        #expect(Self.pairs(map, range, reverse: true).map(\.key) == [[20], [18], [16], [14], [12]])
        let exact = KeyRange(from: [10], to: [20])
        #expect(Self.pairs(map, exact).map(\.key) == [[10], [12], [14], [16], [18]])
        #expect(Self.pairs(map, exact, reverse: true).map(\.key) == [[18], [16], [14], [12], [10]])
        #expect(Self.pairs(map, KeyRange(from: [21], to: [21])).isEmpty)
        #expect(Self.pairs(map, KeyRange(from: [30], to: [20]), reverse: true).isEmpty)
        #expect(Array(map.elements(in: Self.everything, reverse: true).prefix(2)).map(\.key) == [[98], [96]])
    }

    @Test func aChangeCopiesOnlyOnePath() {
        var map = Map()
        for index in 0..<1_000 {
            map.set([], forKey: .bigEndian(UInt32(index)))
        }
        let before = map
        map.set([1], forKey: .bigEndian(500))
        #expect(map.nodesNotShared(with: before) <= before.height + 2)  // a path, plus rotations
        #expect(before.value(forKey: .bigEndian(500)) == [])
        #expect(map.value(forKey: .bigEndian(500)) == [1])

        let beforeRemoval = map
        map.removeAll(in: KeyRange(from: .bigEndian(100), to: .bigEndian(900)))
        #expect(map.count == 200)
        #expect(map.nodesNotShared(with: beforeRemoval) <= 4 * beforeRemoval.height)
        #expect(beforeRemoval.count == 1_000)
    }

    @Test func removingAMissingKeyAllocatesNothing() {
        var map = Map()
        for index in 0..<100 { map.set([], forKey: .bigEndian(UInt32(index * 2))) }
        let before = map
        map.remove(.bigEndian(7))
        #expect(map.nodesNotShared(with: before) == 0)
    }
}

extension Array where Element == UInt8 {
    /// `value` as 4 big-endian bytes, so that byte order is numeric order.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
}
