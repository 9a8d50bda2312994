import Foundation
import StratusPredicate
import Testing

@Suite("Sorting")
struct SortTests {
    private func sorted(_ values: [PredicateValue?], by key: SortKey) -> [PredicateValue?] {
        values.sorted { key.compare($0, $1) == .orderedAscending }
    }

    @Test func nullsFirstAscendingLastDescending() {
        let values: [PredicateValue?] = [.int(2), nil, .int(1), .null]
        let ascending = sorted(values, by: SortKey(key: "n", ascending: true))
        #expect(ascending.prefix(2).allSatisfy { $0 == nil || $0 == .null })
        #expect(Array(ascending.suffix(2)) == [.int(1), .int(2)])
        let descending = sorted(values, by: SortKey(key: "n", ascending: false))
        #expect(Array(descending.prefix(2)) == [.int(2), .int(1)])
        #expect(descending.suffix(2).allSatisfy { $0 == nil || $0 == .null })
    }

    @Test func numbersMixAcrossRepresentations() {
        let values: [PredicateValue?] = [.double(2.5), .int(3), .bool(false), .int(-1), .double(.nan), .double(1)]
        #expect(
            sorted(values, by: SortKey(key: "n", ascending: true)).map { $0?.description } == [
                "-1", "NO", "1.0", "2.5", "3", "nan",
            ])
    }

    @Test func stringsAreCaseSensitive() {
        let values: [PredicateValue?] = [.string("banana"), .string("Cherry"), .string("apple"), .string("Apple")]
        #expect(
            sorted(values, by: SortKey(key: "s", ascending: true)) == [
                .string("Apple"), .string("Cherry"), .string("apple"), .string("banana"),
            ])
    }

    @Test func otherKindsAndMixedKinds() {
        let early = Date(timeIntervalSince1970: 0)
        let late = Date(timeIntervalSince1970: 10)
        #expect(PredicateValue.sortOrder(.date(early), .date(late)) == .orderedAscending)
        #expect(PredicateValue.sortOrder(.bytes(Data([1])), .bytes(Data([1, 0]))) == .orderedAscending)
        #expect(
            PredicateValue.sortOrder(
                .reference(recordName: "a", zoneName: "z", ownerName: "o"),
                .reference(recordName: "a", zoneName: "y", ownerName: "o")
            ) == .orderedDescending)
        #expect(PredicateValue.sortOrder(.list([.int(1)]), .list([.int(1), .int(0)])) == .orderedAscending)
        // Kinds order: null, numbers, strings, dates, …
        #expect(PredicateValue.sortOrder(.int(99), .string("0")) == .orderedAscending)
        #expect(PredicateValue.sortOrder(.string("z"), .date(early)) == .orderedAscending)
        #expect(PredicateValue.sortOrder(nil, .null) == .orderedSame)
        #expect(PredicateValue.sortOrder(.int(1), .double(1)) == .orderedSame)
    }

    @Test func relativeLocation() {
        let paris = PredicateLocation(latitude: 48.8566, longitude: 2.3522)
        let london = PredicateLocation(latitude: 51.5074, longitude: -0.1278).predicateValue
        let newYork = PredicateLocation(latitude: 40.7128, longitude: -74.0060).predicateValue
        let key = SortKey(key: "location", ascending: true, relativeLocation: paris)
        #expect(sorted([newYork, nil, london, .string("x")], by: key).suffix(2) == [london, newYork])
    }
}
