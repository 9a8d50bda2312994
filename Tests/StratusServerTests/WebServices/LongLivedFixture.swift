import Foundation
import Stratus
import StratusInMemory
import Testing

/// One journaled callback as `…/stratus/operations/{id}/events` returns it.
struct JournaledEvent: Sendable {
    var sequence: Int64
    var bytes: [UInt8]
    var isFinal: Bool
}

/// The long-lived operation endpoints (decision 0014.8–9) as the tests call them.
extension WebServicesFixture {
    /// `POST …/{database}/stratus/operations/submit` with `operation`'s journal encoding.
    func submit(
        _ operation: CKDatabaseOperation, id: String, isLongLived: Bool = true, database: String = "private",
        as credentials: Credentials = .alice, at baseURL: URL? = nil
    ) async throws -> Answer {
        let submission = try LongLivedSubmission(encoding: operation)
        return try await post(
            "stratus/operations/submit",
            [
                "operationID": id, "operationClass": submission.operationClass, "isLongLived": isLongLived,
                "request": Data(submission.request).base64EncodedString(),
            ], database: database, as: credentials, at: baseURL)
    }

    /// `method` to `…/private/stratus/operations{suffix}` with `query` after the credentials.
    func operations(
        _ method: String, _ suffix: String = "", query: String = "", as credentials: Credentials = .alice,
        at baseURL: URL? = nil
    ) async throws -> Answer {
        var url =
            (baseURL ?? server.baseURL).absoluteString
            + "/database/1/\(Self.container)/development/private/stratus/operations\(suffix)"
        switch credentials {
        case .alice: url += "?ckAPIToken=\(apiToken)&ckWebAuthToken=\(aliceSession)"
        case .bob: url += "?ckAPIToken=\(apiToken)&ckWebAuthToken=\(bobSession)"
        case .anonymous: url += "?ckAPIToken=\(apiToken)"
        case .none: url += "?x=1"
        case .raw(let raw): url += "?" + raw
        }
        if !query.isEmpty { url += "&" + query }
        let answer = try await request(method, url: url, body: method == "POST" ? Data("{}".utf8) : nil)
        return Answer(status: answer.status, json: answer.json)
    }

    /// The caller's listed operation IDs.
    func listedOperations(as credentials: Credentials = .alice, at baseURL: URL? = nil) async throws -> [String] {
        let answer = try await operations("GET", as: credentials, at: baseURL)
        try #require(answer.status == 200, "list: \(answer.json)")
        return answer.json["operationIDs"] as? [String] ?? []
    }

    /// One page of journaled callbacks of `id` from `from`, waiting up to `timeout` seconds.
    func eventPage(
        _ id: String, from: Int64, timeout: Double = 10, as credentials: Credentials = .alice, at baseURL: URL? = nil
    ) async throws -> (events: [JournaledEvent], state: String) {
        let answer = try await operations(
            "GET", "/\(id)/events", query: "from=\(from)&timeout=\(timeout)", as: credentials, at: baseURL)
        try #require(answer.status == 200, "events: \(answer.status) \(answer.json)")
        let events = try (answer.json["events"] as? [[String: Any]] ?? []).map { event in
            JournaledEvent(
                sequence: try #require((event["sequence"] as? NSNumber)?.int64Value),
                bytes: Array(try #require(Data(base64Encoded: event["event"] as? String ?? ""))),
                isFinal: event["final"] as? Bool ?? false)
        }
        return (events, answer.json["state"] as? String ?? "")
    }

    /// Every journaled callback of `id`, read page by page until the final one (or the
    /// operation stopped), failing after `deadline` seconds.
    func allEvents(
        _ id: String, as credentials: Credentials = .alice, at baseURL: URL? = nil, deadline: Double = 120
    ) async throws -> [JournaledEvent] {
        var events: [JournaledEvent] = []
        let end = Date().addingTimeInterval(deadline)
        while Date() < end {
            let page = try await eventPage(
                id, from: Int64(events.count), as: credentials, at: baseURL)
            events += page.events
            if events.last?.isFinal == true || (page.events.isEmpty && page.state != "running") { return events }
        }
        Issue.record("operation \(id) did not finish within \(deadline) s (\(events.count) callbacks)")
        return events
    }
}

/// Reads journaled callbacks back as one line each (``LongLivedEventSummary``).
enum EventSummaries {
    /// A context for decoding: the callbacks carry no assets, so any database does.
    static func context() throws -> DatabaseContext {
        try Engine(backend: InMemoryBackend()).database(
            namespace: Namespace(container: "decode", environment: .development), scope: .private)
    }

    static func lines(_ events: [JournaledEvent], of operationClass: String) throws -> [String] {
        let context = try context()
        return try events.map {
            try LongLivedEventSummary.summary(operationClass: operationClass, bytes: $0.bytes, context: context)
        }
    }
}

/// Bodies of `stratus/operations/submit` for tests that send raw JSON.
enum LongLivedExamples {
    /// A fetch of every zone, submitted long-lived as operation `id`.
    static func fetchZonesBody(id: String) -> String {
        let operation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        guard let submission = try? LongLivedSubmission(encoding: operation) else { return "{}" }
        return #"{"operationID": "\#(id)", "operationClass": "\#(submission.operationClass)", "isLongLived": true, "#
            + #""request": "\#(Data(submission.request).base64EncodedString())"}"#
    }
}
