import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
internal import Stratus
internal import StratusWebServices

/// The courier endpoints (decision 0014.4–5): `GET /notifications/1/{token}` (long-poll),
/// `GET /notifications/1/{token}/events` (server-sent events) and `POST
/// /notifications/1/{token}/ack`. The token is a capability: it alone names the user, and it
/// is never logged (the request log shows the route template).
struct NotificationRoutes: Sendable {
    let server: ServerState

    static let prefix = "/notifications/1/:token"
    /// The most entries one answer carries, and the default.
    static let maximumLimit = 400
    static let defaultLimit = 100
    /// The longest a poll waits (under common proxy idle limits), and the default.
    static let maximumTimeout = 55.0
    static let defaultTimeout = 30.0

    func register(on router: Router<BasicRequestContext>) {
        router.get(RouterPath(Self.prefix)) { request, context in try await poll(request, context) }
        router.get(RouterPath(Self.prefix + "/events")) { request, context in try await events(request, context) }
        router.post(RouterPath(Self.prefix + "/ack")) { request, context in try await ack(request, context) }
    }

    /// The courier the path's token presents, or 401.
    func courier(_ context: BasicRequestContext) async throws -> (token: String, entry: CourierEntry) {
        let token = try context.parameters.decoded("token") ?? ""
        let store = server.authStore
        let entry = try await server.executor.run(requestID: context.id) { try store.courier(presented: token) }
        guard let entry else { throw ServerError.authenticationFailed("unknown or expired notification token") }
        return (token, entry)
    }

    /// Acknowledges everything at or below `position` (the cursor moves only forward, and never
    /// past the log's last entry) and purges what every one of the user's tokens acknowledged;
    /// notes the token's use once a day even without a move. Returns the stored cursor.
    func acknowledge(_ token: String, _ entry: CourierEntry, through position: Int64, requestID: String)
        async throws -> Int64
    {
        let stale = Date().timeIntervalSince(entry.lastPoll) > 86_400
        guard position > entry.cursor || stale else { return entry.cursor }
        let store = server.authStore
        let engine = server.engine
        return try await server.executor.run(requestID: requestID) {
            let last = try engine.notificationLog(namespace: entry.namespace).head().next - 1
            let stored = try store.acknowledge(courier: token, through: min(position, last))
            if let lowest = try store.lowestCursor(of: entry.namespace), lowest > 0 {
                try engine.notificationLog(namespace: entry.namespace).purge(through: lowest)
            }
            return stored?.cursor ?? entry.cursor
        }
    }

    /// Drops the user's entries older than the configured retention
    /// (`notificationsRetentionSeconds`, bounded, and at most once a minute per log in this
    /// process, ``NotificationHub/shouldApplyRetention(_:)``).
    func applyRetention(_ entry: CourierEntry, requestID: String) async throws {
        let engine = server.engine
        let hub = server.notificationHub
        let retention = server.notificationLog.retention
        try await server.executor.run(requestID: requestID) {
            let log = try engine.notificationLog(namespace: entry.namespace)
            guard hub.shouldApplyRetention(log.number) else { return }
            try log.purge(writtenBefore: Date().addingTimeInterval(-retention))
        }
    }

    /// The entries after `position` (at most `limit`), waiting up to `timeout` for the first;
    /// `resetRequired` when entries after `position` were dropped unacknowledged, with the
    /// oldest position kept.
    func entries(
        of entry: CourierEntry, after position: Int64, limit: Int, timeout: Duration, requestID: String
    ) async throws -> (entries: [NotificationEntry], resetRequired: Bool, oldest: Int64) {
        let engine = server.engine
        let deadline = ContinuousClock.now + timeout
        while true {
            let (log, found, head) = try await server.executor.run(requestID: requestID) {
                let log = try engine.notificationLog(namespace: entry.namespace)
                let (found, head) = try log.entries(after: position, limit: limit)
                return (log.number, found, head)
            }
            let reset = position < head.oldest - 1  // (position + 1 overflows at Int64.max)
            let left = deadline - ContinuousClock.now
            if !found.isEmpty || reset || left <= .zero || Task.isCancelled || Task.isShuttingDownGracefully {
                return (found, reset, head.oldest)
            }
            await server.notificationHub.wait(log: log, seen: head.next, timeout: left)
        }
    }

    private func poll(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (token, entry) = try await courier(context)
        let query = request.uri.queryParameters
        let after = try Self.integer(query["after"].map(String.init), "after", range: 0...Int64.max)
        let limit =
            try Self.integer(
                query["limit"].map(String.init), "limit", range: 1...Int64(Self.maximumLimit))
            ?? Int64(Self.defaultLimit)
        let timeout = try Self.seconds(query["timeout"].map(String.init)) ?? Self.defaultTimeout
        let cursor = try await acknowledge(token, entry, through: after ?? entry.cursor, requestID: context.id)
        try await applyRetention(entry, requestID: context.id)
        let (found, reset, _) = try await ServerMetrics.longPoll {
            try await entries(
                of: entry, after: after ?? cursor, limit: Int(limit), timeout: .milliseconds(Int(timeout * 1000)),
                requestID: context.id)
        }
        let notifications = found.map { notification -> JSONValue in
            .object([
                "position": .integer(notification.position),
                "payload": Self.payload(notification, of: entry),
            ])
        }
        return Self.respond(
            .object([
                "notifications": .array(notifications), "cursor": .integer(cursor), "resetRequired": .bool(reset),
            ]))
    }

    private func ack(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (token, entry) = try await courier(context)
        let collected = try await server.collectBody(request, limit: 64 << 10, what: "acknowledgement")
        let bytes = Array(collected.readableBytesView)
        guard let body = try? JSONValue.parse(bytes), case .integer(let position)? = body["position"], position >= 0
        else { throw ServerError.badRequest("the body is {\"position\": <a position of the log>}") }
        let cursor = try await acknowledge(token, entry, through: position, requestID: context.id)
        return Self.respond(.object(["cursor": .integer(cursor)]))
    }

    /// The entry's APS dictionary as JSON.
    static func payload(_ entry: NotificationEntry, of courier: CourierEntry) -> JSONValue {
        jsonValue(.object(entry.payload(container: courier.container, userRecordName: courier.userRecordName)))
    }

    static func jsonValue(_ value: NotificationPayloadValue) -> JSONValue {
        switch value {
        case .string(let string): return .string(string)
        case .integer(let int): return .integer(int)
        case .double(let double): return .double(double)
        case .strings(let strings): return .array(strings.map(JSONValue.string))
        case .object(let object): return .object(object.mapValues(jsonValue))
        }
    }

    /// A 200 JSON response.
    static func respond(_ value: JSONValue) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.serialized())))
    }

    /// A query integer within `range`, or 400.
    static func integer(_ text: String?, _ name: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw ServerError.badRequest("\(name) is an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `timeout` in seconds, 0 to 55.
    static func seconds(_ text: String?) throws -> Double? {
        guard let text else { return nil }
        guard let value = Double(text), value >= 0, value <= maximumTimeout else {
            throw ServerError.badRequest("timeout is a number of seconds from 0 to \(Int(maximumTimeout))")
        }
        return value
    }
}
