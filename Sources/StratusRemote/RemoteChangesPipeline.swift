import AsyncHTTPClient
import Foundation
import NIOCore
import Stratus
import Synchronization

/// The next page of a zone's changes, asked for as soon as the page before it arrived — before
/// that page is decoded and delivered — so that the server reads and writes page N + 1 while
/// the client decodes page N (decision 0018): a remote container's form of the zone-changes
/// read-ahead (decision 0009).
///
/// A page asked for ahead is used only when the next fetch asks for exactly it (same zone,
/// token, limit and desired keys) and no record or zone modify through a remote container of
/// this process finished since it was asked for — so what the app wrote from its callbacks is
/// never hidden by a page read before it; otherwise it is dropped and the page asked for
/// again. Nothing is written, so a dropped or unused page changes nothing; a failed one is
/// asked for again, with the usual retries.
final class RemoteChangesPipeline: Sendable {
    /// What a page is asked for with.
    struct Key: Hashable, Sendable {
        var zoneID: CKRecordZone.ID
        var token: Data
        var limit: Int
        var desiredKeys: [String]?
    }

    private struct Pending: Sendable {
        var key: Key
        var writes: Int
        var response: EventLoopFuture<HTTPClient.Response>
    }

    /// Record and zone modifies finished through the remote containers of this process.
    private static let writes = Atomic<Int>(0)

    private let pending = Mutex<Pending?>(nil)

    /// Counts a finished record or zone modify: every page asked for before it is stale.
    static func countWrite() { writes.add(1, ordering: .sequentiallyConsistent) }

    /// The modifies counted so far: read before a page is asked for, given to `start`.
    static var writeCount: Int { writes.load(ordering: .sequentiallyConsistent) }

    /// Keeps `response`, the answer to the page of `key` asked for when ``writeCount`` was
    /// `writes`, dropping any page not taken.
    func start(_ key: Key, writes: Int, _ response: EventLoopFuture<HTTPClient.Response>) {
        pending.withLock { $0 = Pending(key: key, writes: writes, response: response) }
    }

    /// The answer asked for ahead for `key`; `nil` when none was, or when a modify finished
    /// since (it is dropped).
    func take(_ key: Key) -> EventLoopFuture<HTTPClient.Response>? {
        guard let started = pending.withLock({ $0.take() }), started.key == key,
            started.writes == Self.writes.load(ordering: .sequentiallyConsistent)
        else { return nil }
        return started.response
    }
}
