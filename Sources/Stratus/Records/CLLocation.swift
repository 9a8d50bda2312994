public import Foundation

/// Degrees of latitude or longitude (CoreLocation's `CLLocationDegrees`).
public typealias CLLocationDegrees = Double
/// Metres (CoreLocation's `CLLocationDistance`).
public typealias CLLocationDistance = Double
/// Metres of accuracy (CoreLocation's `CLLocationAccuracy`).
public typealias CLLocationAccuracy = Double
/// Degrees clockwise from north (CoreLocation's `CLLocationDirection`).
public typealias CLLocationDirection = Double
/// Metres per second (CoreLocation's `CLLocationSpeed`).
public typealias CLLocationSpeed = Double

/// A latitude and longitude (CoreLocation's `CLLocationCoordinate2D`).
public struct CLLocationCoordinate2D: Sendable, Hashable {
    /// The latitude in degrees.
    public var latitude: CLLocationDegrees
    /// The longitude in degrees.
    public var longitude: CLLocationDegrees
    /// A coordinate of (0, 0).
    public init() { self.init(latitude: 0, longitude: 0) }
    /// A coordinate.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A geographic location, compatible with CoreLocation's `CLLocation` (which does not exist on
/// Linux), for `LOCATION` record fields and location queries.
public final class CLLocation: NSObject, NSSecureCoding, CKRecordValueProtocol, @unchecked Sendable {
    /// The coordinate.
    public let coordinate: CLLocationCoordinate2D
    /// The altitude in metres.
    public let altitude: CLLocationDistance
    /// The horizontal accuracy in metres (negative: invalid coordinate).
    public let horizontalAccuracy: CLLocationAccuracy
    /// The vertical accuracy in metres (negative: invalid altitude).
    public let verticalAccuracy: CLLocationAccuracy
    /// The course in degrees (negative: invalid).
    public let course: CLLocationDirection
    /// The speed in metres per second (negative: invalid).
    public let speed: CLLocationSpeed
    /// When the location was determined.
    public let timestamp: Date

    /// A location at a latitude and longitude.
    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
            horizontalAccuracy: 0, verticalAccuracy: -1, course: -1, speed: -1, timestamp: Date())
    }

    /// A location with every attribute.
    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy, verticalAccuracy: CLLocationAccuracy,
        course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
    }

    /// A location with a coordinate, altitude, accuracies and timestamp.
    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy, verticalAccuracy: CLLocationAccuracy, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy, course: -1, speed: -1, timestamp: timestamp)
    }

    /// The great-circle distance to `location` in metres (haversine, mean Earth radius).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        CLLocation.greatCircleKilometres(coordinate, location.coordinate) * 1000
    }

    /// The haversine distance between two coordinates in kilometres, on a sphere of the mean
    /// Earth radius 6371.0088 km.
    static func greatCircleKilometres(_ a: CLLocationCoordinate2D, _ b: CLLocationCoordinate2D)
        -> Double
    {
        let radius = 6371.0088
        let lat1 = a.latitude * .pi / 180
        let lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLLocation else { return false }
        return coordinate == other.coordinate && altitude == other.altitude
            && horizontalAccuracy == other.horizontalAccuracy
            && verticalAccuracy == other.verticalAccuracy && course == other.course
            && speed == other.speed && timestamp == other.timestamp
    }

    public override var hash: Int { coordinate.latitude.hashValue ^ coordinate.longitude.hashValue }

    public override var description: String {
        "<\(coordinate.latitude),\(coordinate.longitude)> +/- \(horizontalAccuracy)m"
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(coordinate.latitude, forKey: "Latitude")
        coder.encode(coordinate.longitude, forKey: "Longitude")
        coder.encode(altitude, forKey: "Altitude")
        coder.encode(horizontalAccuracy, forKey: "HorizontalAccuracy")
        coder.encode(verticalAccuracy, forKey: "VerticalAccuracy")
        coder.encode(course, forKey: "Course")
        coder.encode(speed, forKey: "Speed")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "Timestamp")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        coordinate = CLLocationCoordinate2D(
            latitude: coder.decodeDouble(forKey: "Latitude"),
            longitude: coder.decodeDouble(forKey: "Longitude"))
        altitude = coder.decodeDouble(forKey: "Altitude")
        horizontalAccuracy = coder.decodeDouble(forKey: "HorizontalAccuracy")
        verticalAccuracy = coder.decodeDouble(forKey: "VerticalAccuracy")
        course = coder.decodeDouble(forKey: "Course")
        speed = coder.decodeDouble(forKey: "Speed")
        timestamp = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "Timestamp"))
    }
}
