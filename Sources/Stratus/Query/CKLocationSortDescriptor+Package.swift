import Foundation

/// Location sorts for modules of this package that must not name `CKLocationSortDescriptor`.
///
/// Swift 6.3.1's optimizer aborts on Linux when another module's cross-module optimization
/// deserializes that class's vtable (the `key` getter it inherits from `NSSortDescriptor` is
/// ambiguous there), so `swift build -c release` of stratusd failed while StratusServer named
/// the class. The body calls a private function, so it is not serialized into the caller.
package enum LocationSorts {
    /// A descriptor sorting by the distance of field `key` from `relativeLocation`.
    @inline(never)
    package static func descriptor(key: String, relativeLocation: CLLocation) -> NSSortDescriptor {
        make(key, relativeLocation)
    }

    @inline(never)
    private static func make(_ key: String, _ relativeLocation: CLLocation) -> NSSortDescriptor {
        CKLocationSortDescriptor(key: key, relativeLocation: relativeLocation)
    }
}
