#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of the calling thread, for this package's backends (SQLite, LMDB): to catch a
/// write started inside a write body on the same thread (which would otherwise wait for itself
/// forever) and a write transaction used from another thread. `package`, not part of the SPI.
package enum CurrentThread {
    /// A number that identifies the calling thread while it runs.
    package static var id: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }
}
