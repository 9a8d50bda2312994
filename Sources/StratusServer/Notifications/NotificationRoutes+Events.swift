import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
internal import Stratus

/// `GET /notifications/1/{token}/events`: the log as server-sent events (decision 0014.5).
/// It starts after `Last-Event-ID` (what `EventSource` resends on reconnect, which also
/// acknowledges it), else `?after=` (also acknowledging), else the stored cursor; each entry is
/// `id: <position>`, `event: notification`, `data: <payload JSON>`; a `: keep-alive` comment
/// goes every ``keepAliveInterval``; the server closes the stream after ``streamLifetime``, or
/// at once when it shuts down gracefully, or when the token is refused (its user or container
/// disabled, checked before each write).
/// A log that dropped entries the client never received sends one `event: reset`.
extension NotificationRoutes {
    /// How often a quiet stream gets a comment, so proxies keep it open.
    static let keepAliveInterval: Duration = .seconds(15)
    /// How long one stream lasts; clients reconnect.
    static let streamLifetime: Duration = .seconds(3600)

    func events(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (token, entry) = try await courier(context)
        let lastEventID = try Self.integer(
            request.headers[HTTPField.Name("Last-Event-ID")!], "Last-Event-ID", range: 0...Int64.max)
        let after =
            try lastEventID
            ?? Self.integer(
                request.uri.queryParameters["after"].map(String.init), "after", range: 0...Int64.max)
        var start = entry.cursor
        if let after {
            _ = try await acknowledge(token, entry, through: after, requestID: context.id)
            start = after
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let requestID = context.id
        let routes = self
        let from = start
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await ServerMetrics.longPoll {
                    try await routes.stream(entry, token: token, from: from, requestID: requestID, to: &writer)
                }
            })
    }

    /// Writes entries after `position` as they come until the stream's lifetime ends, the
    /// client goes away (a write then fails), or `token` is refused.
    private func stream(
        _ entry: CourierEntry, token: String, from start: Int64, requestID: String,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        let end = ContinuousClock.now + Self.streamLifetime
        var position = start
        var resetSent = false
        try await writer.write(ByteBuffer(string: ": stream\n\n"))
        while ContinuousClock.now < end, !Task.isCancelled, !Task.isShuttingDownGracefully {
            let wait = min(Self.keepAliveInterval, end - ContinuousClock.now)
            let (found, reset, oldest) = try await entries(
                of: entry, after: position, limit: Self.defaultLimit, timeout: wait, requestID: requestID)
            guard try await isAccepted(token, requestID: requestID) else { break }
            if reset {
                // Entries were dropped unreceived: say so once, and go on from what is kept.
                if !resetSent { try await writer.write(ByteBuffer(string: "event: reset\ndata: {}\n\n")) }
                resetSent = true
                position = max(position, oldest - 1)
            }
            if found.isEmpty {
                if !reset { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
                continue
            }
            var text = ""
            for notification in found {
                let data = String(decoding: Self.payload(notification, of: entry).serialized(), as: UTF8.self)
                text += "id: \(notification.position)\nevent: notification\ndata: \(data)\n\n"
                position = notification.position
            }
            try await writer.write(ByteBuffer(string: text))
        }
        try await writer.finish(nil)
    }

    /// Whether `token` is still a courier's: a user or container disabled while its stream is
    /// open ends the stream, as a new request with the token is refused.
    private func isAccepted(_ token: String, requestID: String) async throws -> Bool {
        let store = server.authStore
        return try await server.executor.run(requestID: requestID) { try store.courier(presented: token) } != nil
    }
}
