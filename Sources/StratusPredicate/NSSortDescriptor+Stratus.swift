import Foundation

/// The root of the placeholder key path `NSSortDescriptor(key:ascending:)` hands to
/// corelibs' key-path initialiser.
struct SortKeyPlaceholder {
    var key: String
}

#if !canImport(Darwin)
    extension NSSortDescriptor {
        /// Creates a sort descriptor for a record field, as on Apple platforms
        /// (swift-corelibs-foundation marks its own initialiser unavailable).
        ///
        /// `ascending` is Foundation's own property; the key is kept in a side table and read with
        /// ``key`` or ``stratusKey``. The descriptor's `keyPath` is a placeholder, so its
        /// `compare(_:to:)` is meaningless: Stratus sorts records itself, with
        /// ``stratusSortKey``. `reversedSortDescriptor` loses the key (use
        /// `NSSortDescriptor(key:ascending:)` with the opposite direction).
        public convenience init(key: String?, ascending: Bool) {
            self.init(keyPath: \SortKeyPlaceholder.key, ascending: ascending)
            PredicateRegistry.sortKeys.set(key, for: self)
        }
    }

    extension NSSortDescriptor: SortDescriptorKeyed {}

    extension SortDescriptorKeyed where Self: NSSortDescriptor {
        /// The field this descriptor sorts by, as on Apple platforms (corelibs marks its own
        /// `key` unavailable); `nil` for descriptors not made by ``init(key:ascending:)``.
        public var key: String? {
            stratusKey
        }
    }
#endif

extension NSSortDescriptor {
    /// The field this descriptor sorts by: the key given to `NSSortDescriptor(key:ascending:)`
    /// or to ``stratusRegister(key:)``; `nil` otherwise.
    public var stratusKey: String? {
        if let registered = PredicateRegistry.sortKeys.value(for: self) {
            return registered
        }
        #if canImport(Darwin)
            return key
        #else
            return nil
        #endif
    }

    /// Whether smaller values come first (Foundation's `ascending`).
    public var stratusAscending: Bool {
        ascending
    }

    /// The key and direction, or `nil` when the descriptor has no key.
    public var stratusSortKey: SortKey? {
        stratusKey.map { SortKey(key: $0, ascending: ascending) }
    }

    /// Records `key` as the field this descriptor sorts by.
    ///
    /// For subclasses such as `CKLocationSortDescriptor`, whose designated initialisers must
    /// call corelibs' `init(keyPath:ascending:)` and so cannot reach the convenience
    /// `init(key:ascending:)`.
    public func stratusRegister(key: String?) {
        PredicateRegistry.sortKeys.set(key, for: self)
    }
}
