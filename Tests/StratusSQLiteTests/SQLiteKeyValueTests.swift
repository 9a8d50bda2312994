import StratusBackend
import StratusSQLite
import Testing

/// Keys, values, ordering and ranges on SQLite stores, file and in-memory.
@Suite("SQLite key-value edge cases")
struct SQLiteKeyValueTests {
    /// Both kinds of store, so each edge case runs on both.
    enum StoreKind: CaseIterable, Sendable { case file, memory }

    /// Runs `body` on a fresh store of `kind`, closing it afterwards.
    func withStore<T>(_ kind: StoreKind, _ body: (SQLiteBackend) throws -> T) throws -> T {
        switch kind {
        case .memory:
            let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
            defer { try? backend.close() }
            return try body(backend)
        case .file:
            return try withSQLiteStorage { storage in
                let backend = try storage.openSQLite()
                defer { try? backend.close() }
                return try body(backend)
            }
        }
    }

    static let everything = KeyRange(from: [], to: [UInt8](repeating: 0xFF, count: 8))

    @Test(arguments: StoreKind.allCases)
    func emptyKeyAndEmptyValueRoundTrip(_ kind: StoreKind) throws {
        try withStore(kind) { backend in
            try backend.write { tx throws in
                try tx.set([], [])
                try tx.set([1], [])
                try tx.set([2], [0])
                // Read your writes: the empty value is a value, not an absent key.
                #expect(try tx.get([]) == [])
            }
            try backend.read { tx throws in
                #expect(try tx.get([]) == [])
                #expect(try tx.get([1]) == [])
                #expect(try tx.get([2]) == [0])
                #expect(try tx.get([3]) == nil)
                #expect(
                    try tx.scan(Self.everything, limit: 10) == [
                        KeyValuePair(key: [], value: []),
                        KeyValuePair(key: [1], value: []),
                        KeyValuePair(key: [2], value: [0]),
                    ])
                // A range starting at the empty key includes it.
                #expect(try tx.scan(KeyRange(from: [], to: [1]), limit: 10).map(\.key) == [[]])
            }
            try backend.write { tx in try tx.clear([]) }
            #expect(try backend.read { try $0.get([]) } == nil)
        }
    }

    @Test func emptyValuesSurviveReopen() throws {
        try withSQLiteStorage { storage in
            let first = try storage.openSQLite()
            try first.write { tx throws in
                try tx.set([], [])
                try tx.set([7], [])
            }
            try first.close()
            let second = try storage.openSQLite()
            defer { try? second.close() }
            try second.read { tx throws in
                #expect(try tx.get([]) == [])
                #expect(try tx.get([7]) == [])
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func keysOrderAsUnsignedBytesWithZeroAndFFBytes(_ kind: StoreKind) throws {
        let keys: [[UInt8]] = [
            [], [0x00], [0x00, 0x00], [0x00, 0xFF], [0x01], [0x7F], [0x7F, 0xFF], [0x80],
            [0x80, 0x00], [0xFE, 0xFF, 0xFF], [0xFF], [0xFF, 0x00], [0xFF, 0xFF],
            [0xFF, 0xFF, 0xFF],
        ]
        let sorted = keys.sorted(by: KeyRange.less)
        #expect(sorted == keys)  // the list above is written in SPI order
        try withStore(kind) { backend in
            try backend.write { tx throws in
                for (index, key) in keys.shuffled().enumerated() {
                    try tx.set(key, [UInt8(index)])
                }
            }
            try backend.read { tx throws in
                #expect(try tx.scan(Self.everything, limit: 100).map(\.key) == sorted)
                #expect(
                    try tx.scan(Self.everything, limit: 100, reverse: true).map(\.key)
                        == sorted.reversed())
                // Prefix ranges, including the all-0xFF prefix that has no finite successor.
                #expect(
                    try tx.scan(KeyRange(prefix: [0x00]), limit: 100).map(\.key)
                        == [[0x00], [0x00, 0x00], [0x00, 0xFF]])
                #expect(
                    try tx.scan(KeyRange(prefix: [0xFF]), limit: 100).map(\.key)
                        == [[0xFF], [0xFF, 0x00], [0xFF, 0xFF], [0xFF, 0xFF, 0xFF]])
                #expect(
                    try tx.scan(KeyRange(prefix: [0xFF, 0xFF]), limit: 100, reverse: true).map(\.key)
                        == [[0xFF, 0xFF, 0xFF], [0xFF, 0xFF]])
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func scansRespectBoundsLimitAndDirection(_ kind: StoreKind) throws {
        try withStore(kind) { backend in
            try backend.write { tx throws in
                for byte in UInt8(0)..<10 { try tx.set([byte], [byte, byte]) }
            }
            try backend.read { tx throws in
                let range = KeyRange(from: [2], to: [8])
                #expect(try tx.scan(range, limit: 3).map(\.key) == [[2], [3], [4]])
                #expect(try tx.scan(range, limit: 3, reverse: true).map(\.key) == [[7], [6], [5]])
                #expect(try tx.scan(range, limit: 1, reverse: true) == [KeyValuePair(key: [7], value: [7, 7])])
                #expect(
                    try tx.scan(range, limit: 100, reverse: true).map(\.key) == (2..<8).reversed().map { [UInt8($0)] })
                // Upper bound excluded, lower bound included, even when they are not stored.
                #expect(try tx.scan(KeyRange(from: [2, 0], to: [4]), limit: 10).map(\.key) == [[3]])
                // Empty and inverted ranges give nothing.
                #expect(try tx.scan(KeyRange(from: [5], to: [5]), limit: 10).isEmpty)
                #expect(try tx.scan(KeyRange(from: [6], to: [5]), limit: 10, reverse: true).isEmpty)
            }
        }
    }

    @Test func scanLimitBelowOneIsAnInvalidArgument() throws {
        try withStore(.memory) { backend in
            let error = #expect(throws: BackendError.self) {
                try backend.read { try $0.scan(Self.everything, limit: 0) }
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func clearRangeRemovesExactlyTheRange(_ kind: StoreKind) throws {
        try withStore(kind) { backend in
            try backend.write { tx throws in
                for byte in UInt8(0)..<10 {
                    try tx.set([byte], [byte])
                    try tx.set([byte, 0xFF], [byte])
                }
            }
            try backend.write { tx throws in
                try tx.clearRange(KeyRange(from: [3], to: [6]))
                // Read your writes inside the body.
                #expect(try tx.get([4]) == nil)
                #expect(
                    try tx.scan(KeyRange(from: [2], to: [7]), limit: 100).map(\.key) == [
                        [2], [2, 0xFF], [6], [6, 0xFF],
                    ])
                // An empty or inverted range removes nothing.
                try tx.clearRange(KeyRange(from: [8], to: [8]))
                try tx.clearRange(KeyRange(from: [9], to: [8]))
                try tx.clearRange(KeyRange(prefix: [0]))
            }
            let keys = try backend.read { try $0.scan(Self.everything, limit: 100).map(\.key) }
            #expect(
                keys == [
                    [1], [1, 0xFF], [2], [2, 0xFF], [6], [6, 0xFF], [7], [7, 0xFF], [8], [8, 0xFF], [9], [9, 0xFF],
                ])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func overwriteAndClearOfMissingKey(_ kind: StoreKind) throws {
        try withStore(kind) { backend in
            try backend.write { tx throws in
                try tx.set([1], [1])
                try tx.set([1], [2, 2])
                try tx.clear([9])  // not an error
            }
            #expect(try backend.read { try $0.get([1]) } == [2, 2])
        }
    }

    @Test func largeValuesRoundTrip() throws {
        try withStore(.file) { backend in
            let value = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let key = [UInt8](repeating: 0xAB, count: 2000)
            try backend.write { try $0.set(key, value) }
            #expect(try backend.read { try $0.get(key) } == value)
        }
    }
}
