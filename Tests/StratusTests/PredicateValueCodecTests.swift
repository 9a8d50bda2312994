import Foundation
import Testing

@testable import Stratus

/// Predicate values (a stored predicate's constants, a memory-sorted query's cursor's sort
/// values) come back as they went.
@Suite struct PredicateValueCodecTests {
    @Test func everyKindOfValueRoundTrips() throws {
        let values: [PredicateValue?] = [
            nil, .null, .string("naïve"), .int(-42), .double(2.5), .bool(false), .bool(true),
            .date(Date(timeIntervalSinceReferenceDate: 12_345.678)), .bytes(Data([0, 1, 255])),
            .reference(recordName: "r", zoneName: "Z", ownerName: "_o"), .location(latitude: 50.85, longitude: 4.35),
            .list([.string("a"), .int(1), .location(latitude: 1, longitude: 2)]),
        ]
        var writer = ByteWriter()
        for value in values { PredicateValueCodec.write(optional: value, to: &writer) }
        var reader = ByteReader(writer.bytes)
        let read = try values.map { _ in try PredicateValueCodec.readOptional(from: &reader) }
        #expect(read == values)
        #expect(reader.remaining == 0)
    }

    @Test func listsNestNoDeeperThanStoredFieldsDo() {
        var value = PredicateValue.int(1)
        for _ in 0...FieldValueCodec.maximumListDepth { value = .list([value]) }
        var writer = ByteWriter()
        PredicateValueCodec.write(value, to: &writer)
        var reader = ByteReader(writer.bytes)
        #expect(throws: EngineError.self) { try PredicateValueCodec.read(from: &reader) }
    }
}
