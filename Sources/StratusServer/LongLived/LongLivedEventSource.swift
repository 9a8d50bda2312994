internal import Stratus

/// What the events endpoint reads of one operation (decision 0014.9): its status and its
/// journaled callbacks. ``HostedJournal`` is the one the server reads;
/// ``LongLivedEvents/read(_:from:limit:in:)`` takes any, so that a test can put a journal
/// write between the two reads without the server paying for a hook.
protocol LongLivedEventSource {
    /// The status of operation `id`, or `nil` when the journal has none.
    func status(_ id: String) throws -> HostedOperationStatus?
    /// Up to `limit` journaled callbacks of `id` from sequence `from`, in the journal's encoding.
    func events(_ id: String, from: Int64, limit: Int) throws -> [(sequence: Int64, bytes: [UInt8])]
}

extension HostedJournal: LongLivedEventSource {}
