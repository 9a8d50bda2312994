#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of the calling thread, to catch a write started inside a write body on the
/// same thread (which would otherwise wait for itself forever).
enum CurrentThread {
    /// A number that identifies the calling thread while it runs.
    static var id: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }
}
