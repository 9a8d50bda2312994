import Foundation
import StratusPredicate
import Testing

@Suite("Distances")
struct DistanceTests {
    static let paris = PredicateLocation(latitude: 48.8566, longitude: 2.3522)
    static let london = PredicateLocation(latitude: 51.5074, longitude: -0.1278)
    static let newYork = PredicateLocation(latitude: 40.7128, longitude: -74.0060)
    static let sydney = PredicateLocation(latitude: -33.8688, longitude: 151.2093)

    @Test func knownCityPairs() {
        #expect(abs(Self.paris.distanceKilometres(to: Self.london) - 343.5) < 1)
        #expect(abs(Self.london.distanceKilometres(to: Self.paris) - 343.5) < 1)
        #expect(abs(Self.london.distanceKilometres(to: Self.newYork) - 5570) < 5)
        #expect(abs(Self.paris.distanceKilometres(to: Self.sydney) - 16_960) < 20)
        #expect(Self.paris.distanceKilometres(to: Self.paris) == 0)
        // Antipodes: half the circumference.
        let north = PredicateLocation(latitude: 90, longitude: 0)
        let south = PredicateLocation(latitude: -90, longitude: 0)
        #expect(abs(north.distanceKilometres(to: south) - Double.pi * PredicateLocation.earthRadiusKilometres) < 1e-6)
    }

    @Test func insideTheCircle() {
        let record = TestRecord(["location": Self.london.predicateValue, "name": .string("x")])
        let centre = TestLocation(latitude: Self.paris.latitude, longitude: Self.paris.longitude)
        #expect(matches("distanceToLocation:fromLocation:(location, %@) < 344", centre, in: record))
        #expect(!matches("distanceToLocation:fromLocation:(location, %@) < 343", centre, in: record))
        #expect(matches("distanceToLocation:fromLocation:(location, %@) < %f", centre, 343.6, in: record))
        #expect(matches("350 > distanceToLocation:fromLocation:(location, %@)", centre, in: record))
        #expect(
            matches("distanceToLocation:fromLocation:(%K, %@) < 400 AND name == 'X'", "location", centre, in: record))
        #expect(!matches("distanceToLocation:fromLocation:(missing, %@) < 400", centre, in: record))
        #expect(!matches("distanceToLocation:fromLocation:(name, %@) < 400", centre, in: record))
        #expect(throws: QueryPredicateError.self) {
            try QueryPredicate.parse(format: "distanceToLocation:fromLocation:(name, %@) < 400", arguments: [centre])
                .evaluateStrictly(record)
        }
    }

    @Test func strictVersusInclusiveBound() throws {
        let here = PredicateLocation(latitude: 10, longitude: 10)
        let record = TestRecord(["location": here.predicateValue])
        #expect(!matches("distanceToLocation:fromLocation:(location, %@) < 0", here, in: record))
        #expect(matches("distanceToLocation:fromLocation:(location, %@) <= 0", here, in: record))
    }
}
