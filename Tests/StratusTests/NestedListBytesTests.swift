import Foundation
import Testing

@testable import Stratus

/// Lists nested in bytes a client can send (a binary `records/modify` body, a long-lived
/// operation's request, a stored subscription's predicate) are read with a bounded depth: deep
/// nesting is a damaged value, never a recursion that overflows the reading thread's stack and
/// kills the server. A list inside a list decoded from bytes is refused on save, as the API refuses one.
@Suite struct NestedListBytesTests {
    /// `depth` lists, each holding the next, around one string: `09 01` `depth` times, then
    /// `01 01 'x'`.
    static func nested(_ depth: Int) -> [UInt8] {
        Array(repeating: [9, 1] as [UInt8], count: depth).flatMap { $0 } + [1, 1, UInt8(ascii: "x")]
    }

    @Test(arguments: [FieldValueCodec.maximumListDepth + 1, 5_000, 200_000])
    func deepListsAreDamagedValuesForEveryReader(depth: Int) throws {
        var reader = ByteReader(Self.nested(depth))
        #expect(throws: EngineError.self) { _ = try FieldValueCodec.read(from: &reader) }
        var skipping = ByteReader(Self.nested(depth))
        #expect(throws: EngineError.self) { _ = try FieldValueCodec.skip(&skipping) }
        var predicate = ByteReader([0] + [1] + Self.nested(depth))  // an empty template, one value
        #expect(throws: EngineError.self) { _ = try StoredPredicate(reading: &predicate) }
    }

    @Test func listsWithinTheBoundStillRead() throws {
        var reader = ByteReader(Self.nested(FieldValueCodec.maximumListDepth))
        var value = try FieldValueCodec.read(from: &reader)
        var depth = 0
        while case .list(let items) = value {
            depth += 1
            value = try #require(items.first)
        }
        #expect(depth == FieldValueCodec.maximumListDepth)
        #expect(value == .string("x"))
    }

    /// A list inside a list that did not come through the API's setter (a binary body or a
    /// long-lived request decodes values straight from bytes) is refused by the engine's save
    /// check with the API's words, and nothing else of the batch is applied.
    @Test func aListInsideAListDecodedFromBytesIsRefusedOnSave() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                var state = CKRecord.State()
                state.values["nested"] = .list([.string("a"), .list([.string("x")])])
                state.changed = ["nested"]
                return CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone), state: state)
            }, code: .invalidArguments, mentions: ["nested", "a list inside a list (item 1)"])
    }

    /// A list mixing types that did not come through the API's setter (which refuses it) is
    /// refused by the engine's save check too: its schema type would be its first item's, and
    /// its other items would be answered under a type that is not theirs.
    @Test func aListMixingTypesDecodedFromBytesIsRefusedOnSave() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                var state = CKRecord.State()
                state.values["mixed"] = .list([.string("a"), .string("b"), .integer(3, .int64)])
                state.changed = ["mixed"]
                return CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone), state: state)
            }, code: .invalidArguments, mentions: ["mixed", "a list mixing STRING and NUMBER values (item 2)"])
    }
}
