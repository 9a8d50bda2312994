import Foundation
import Testing

@testable import Stratus

/// Lists nested in bytes a client can send (a binary `records/modify` body, a long-lived
/// operation's request, a stored subscription's predicate) are read with a bounded depth: deep
/// nesting is a damaged value, never a recursion that overflows the reading thread's stack and
/// kills the server. A list inside a list is refused where records arrive, as the API refuses one.
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

    @Test func aListInsideAListIsRefusedWhereRecordsArrive() throws {
        var wire = RecordWireReader(Self.nested(2))
        #expect {
            _ = try wire.value()
        } throws: { error in
            (error as? RecordWireError)?.reason.contains("a list inside a list") == true
        }
        var flat = RecordWireReader(Self.nested(1))
        #expect(try flat.value() == .list([.string("x")]))
    }
}
