import Foundation
import Hummingbird
import ServiceLifecycle
internal import Stratus
internal import StratusWebServices

/// `GET …/stratus/operations/{id}/events?from=SEQ&limit=N&timeout=T` (decision 0014.9): the
/// operation's journaled callbacks from sequence `from`, in the journal's encoding; when there
/// are none yet and the operation still runs, it waits up to `timeout` seconds (default 30, at
/// most 55) for the next, like the notification long-poll. A callback this process journals
/// wakes it at once (``LongLivedSignals``); one journaled by another stratusd is found by
/// reading the journal again every ``LongLivedRunner/Timing/eventsReread`` (1 s).
enum LongLivedEvents {
    static let defaultLimit: Int64 = 100
    static let maximumLimit: Int64 = 400

    static func handle(_ call: DatabaseCall) async throws -> Response {
        let id = call.operationID
        let from = try NotificationRoutes.integer(call.query["from"], "from", range: 0...Int64.max) ?? 0
        let limit =
            try NotificationRoutes.integer(call.query["limit"], "limit", range: 1...maximumLimit) ?? defaultLimit
        let timeout = try NotificationRoutes.seconds(call.query["timeout"]) ?? NotificationRoutes.defaultTimeout
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        let runner = call.server.longLivedRunner
        return try await ServerMetrics.longPoll {
            // The first read learns the journal's number; every later one is subscribed first.
            var lease: LongLivedLease?
            while true {
                let subscription = lease.map { runner.signals.subscribe($0) }
                defer { subscription.map { runner.signals.end($0) } }
                let (number, events, status) = try await call.withJournal { journal in
                    let read = try Self.read(id, from: from, limit: Int(limit), in: journal)
                    return (journal.number, read.events, read.status)
                }
                let done =
                    !events.isEmpty || status.state != .running || ContinuousClock.now >= deadline
                    || Task.isCancelled || Task.isShuttingDownGracefully
                if done { return call.respond(answer(events, status)) }
                guard let subscription else {
                    lease = LongLivedLease(journal: number, operationID: id)
                    continue
                }
                let wait = min(runner.timing.eventsReread, deadline - ContinuousClock.now)
                await runner.signals.wait(subscription, timeout: wait)
            }
        }
    }

    /// The status of operation `id`, then up to `limit` of its events from `from`.
    ///
    /// The status first: an operation that completes between the two reads is then answered
    /// as running, with the events it journaled; read the other way round, it could be
    /// answered as completed without its last events, and a client that stops at a completed
    /// answer would never read them (`LongLivedEventsOrderTests`).
    static func read(_ id: String, from: Int64, limit: Int, in journal: some LongLivedEventSource) throws -> (
        events: [(sequence: Int64, bytes: [UInt8])], status: HostedOperationStatus
    ) {
        guard let status = try journal.status(id) else { throw ServerError.unknownOperation(id) }
        let events = try journal.events(id, from: from, limit: limit)
        return (events, status)
    }

    /// `{operationID, state, nextSequence, events: [{sequence, event, final}]}`; `final` marks
    /// the operation's last callback once it completed.
    static func answer(_ events: [(sequence: Int64, bytes: [UInt8])], _ status: HostedOperationStatus) -> JSONValue {
        let completed = status.state == .completed || status.state == .delivered
        var answer = LongLivedEndpoints.fields(status)
        answer["events"] = .array(
            events.map { event in
                [
                    "sequence": .integer(event.sequence), "event": .string(Data(event.bytes).base64EncodedString()),
                    "final": .bool(completed && event.sequence == status.nextSequence - 1),
                ]
            })
        return .object(answer)
    }
}
