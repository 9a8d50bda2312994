import Synchronization

/// The recording of one streamed answer's metrics, done once: when its body has been written
/// (or failed), or else when the body is dropped without ever being written (a client gone
/// before the head was sent), so the requests-in-flight gauge never stays raised.
final class RequestRecording: Sendable {
    private let done = Atomic<Bool>(false)
    private let record: @Sendable () -> Void

    init(_ record: @escaping @Sendable () -> Void) {
        self.record = record
    }

    /// Records, unless this recording already did.
    func finish() {
        if !done.exchange(true, ordering: .acquiringAndReleasing) { record() }
    }

    deinit { finish() }
}
