import Foundation
import StratusPredicate

/// The root of the placeholder key path handed to corelibs' `init(keyPath:ascending:)`.
private struct LocationSortPlaceholder {
    var key: String
}

/// Sorts query results by the distance of a `LOCATION` field from a point, nearest first
/// (CloudKit does not allow reversing the order).
public final class CKLocationSortDescriptor: NSSortDescriptor {
    /// The point distances are measured from.
    public let relativeLocation: CLLocation

    /// A descriptor sorting by the distance of field `key` from `relativeLocation`.
    public init(key: String, relativeLocation: CLLocation) {
        self.relativeLocation = relativeLocation
        #if canImport(Darwin)
            super.init(key: key, ascending: true, selector: nil)
        #else
            super.init(keyPath: \LocationSortPlaceholder.key, ascending: true)
        #endif
        stratusRegister(key: key)
    }

    /// Archiving is not supported on Linux for sort descriptors.
    public required init?(coder: NSCoder) {
        return nil
    }

    /// The sort key the engine uses: ascending distance from `relativeLocation`.
    var sortKey: SortKey {
        SortKey(
            key: stratusKey ?? "", ascending: true,
            relativeLocation: PredicateLocation(
                latitude: relativeLocation.coordinate.latitude, longitude: relativeLocation.coordinate.longitude))
    }
}
