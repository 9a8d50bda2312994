#if !canImport(Darwin)
    /// What gives `NSSortDescriptor` its `key` on Linux, where swift-corelibs-foundation declares
    /// one but marks it unavailable.
    ///
    /// `key` is declared in an extension of this protocol, not of `NSSortDescriptor` itself: two
    /// members named `key` on the class (corelibs' unavailable one and ours) made Swift 6.3.1's
    /// optimizer abort ("result is ambiguous") when it deserialized the vtable of a subclass such
    /// as `CKLocationSortDescriptor` in another module's release build — an app that named the
    /// class could not be built with `-c release`. A protocol extension's member is not a member
    /// of the class, so the vtable has one `key`, while `descriptor.key` still finds ours (the
    /// unavailable one loses overload resolution). Nothing else should conform.
    public protocol SortDescriptorKeyed: AnyObject {}
#endif
