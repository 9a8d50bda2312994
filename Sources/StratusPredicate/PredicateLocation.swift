import Foundation

/// A geographic coordinate in degrees, and the great-circle distance used by
/// `distanceToLocation:fromLocation:` and by location sort keys.
public struct PredicateLocation: Sendable, Hashable {
    /// The mean radius of the Earth in kilometres (IUGG mean radius R₁ = 6371.0088 km), the
    /// radius of the sphere on which distances are measured.
    public static let earthRadiusKilometres = 6371.0088

    /// Latitude in degrees, positive north.
    public var latitude: Double
    /// Longitude in degrees, positive east.
    public var longitude: Double

    /// The coordinate at `latitude`, `longitude` (degrees).
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The coordinate a ``PredicateValue/location(latitude:longitude:)`` holds; `nil` for any
    /// other value.
    public init?(_ value: PredicateValue) {
        guard case .location(let latitude, let longitude) = value else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// This coordinate as a ``PredicateValue``.
    public var predicateValue: PredicateValue {
        .location(latitude: latitude, longitude: longitude)
    }

    /// The great-circle distance to `other` in kilometres, by the haversine formula on a
    /// sphere of radius ``earthRadiusKilometres``. Accurate to about 0.5 % against the
    /// ellipsoid (Paris–London ≈ 343.6 km).
    public func distanceKilometres(to other: PredicateLocation) -> Double {
        let radiansPerDegree = Double.pi / 180
        let phi1 = latitude * radiansPerDegree
        let phi2 = other.latitude * radiansPerDegree
        let deltaPhi = phi2 - phi1
        let deltaLambda = (other.longitude - longitude) * radiansPerDegree
        let sinHalfPhi = sin(deltaPhi / 2)
        let sinHalfLambda = sin(deltaLambda / 2)
        let h = sinHalfPhi * sinHalfPhi + cos(phi1) * cos(phi2) * sinHalfLambda * sinHalfLambda
        return 2 * PredicateLocation.earthRadiusKilometres * asin(min(1, h.squareRoot()))
    }
}
