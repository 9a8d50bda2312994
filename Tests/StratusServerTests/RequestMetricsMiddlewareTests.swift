import Foundation
import Hummingbird
import Logging
import MetricsTestKit
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import StratusServer

/// The per-request metrics, recorded by Stratus's own middleware into a test metrics factory,
/// the middleware called directly (an in-process server would share this test process's
/// cooperative threads with every other test): a whole answer is recorded when the handler
/// returns it, a streamed one once written, failed or dropped, each exactly once. That a whole
/// answer then leaves `stratusd` in one write is `DaemonMetricsTests`'s.
@Suite("RequestMetricsMiddleware: requests counted and timed, streamed answers once sent")
struct RequestMetricsMiddlewareTests {
    @Test func aWholeAnswerIsRecordedWhenTheHandlerReturnsIt() async throws {
        let metrics = TestMetrics()
        let response = try await Self.respond(metrics) {
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "whole")))
        }
        #expect(try Self.requests(metrics, status: "200") == 1, "recorded before the body is written")
        #expect(try metrics.expectTimer("http.server.request.duration", Self.dimensions("200")).values.count == 1)
        #expect(try Self.active(metrics) == 0)
        #expect(response.body.contentLength == 5)
    }

    @Test func aStreamedAnswerIsRecordedOnceWritten() async throws {
        let metrics = TestMetrics()
        let response = try await Self.respond(metrics) { Self.streamed(pieces: 3, thenFail: false) }
        #expect(throws: (any Error).self, "not recorded before it is written") {
            try metrics.expectCounter("hb.requests", Self.dimensions("200"))
        }
        #expect(try Self.active(metrics) == 1)
        let written = Written()
        try await response.body.write(Collector(written: written))
        #expect(written.state.withLock { $0.pieces } == ["piece 0", "piece 1", "piece 2"])
        #expect(try Self.requests(metrics, status: "200") == 1)
        #expect(try metrics.expectTimer("http.server.request.duration", Self.dimensions("200")).values.count == 1)
        #expect(try Self.active(metrics) == 0)
    }

    @Test func aStreamedAnswerThatFailsMidwayIsRecordedOnce() async throws {
        let metrics = TestMetrics()
        let response = try await Self.respond(metrics) { Self.streamed(pieces: 1, thenFail: true) }
        await #expect(throws: HTTPError.self) { try await response.body.write(Collector(written: Written())) }
        #expect(try Self.requests(metrics, status: "200") == 1, "its status was sent before it failed")
        #expect(try Self.active(metrics) == 0)
    }

    @Test func aStreamedAnswerNeverWrittenIsRecordedWhenDropped() async throws {
        let metrics = TestMetrics()
        do {
            let response = try await Self.respond(metrics) { Self.streamed(pieces: 1, thenFail: false) }
            #expect(try Self.active(metrics) == 1)
            _ = response
        }
        #expect(try Self.requests(metrics, status: "200") == 1)
        #expect(try Self.active(metrics) == 0, "the requests-in-flight gauge does not stay raised")
    }

    @Test func aRefusalIsCountedAsAnError() async throws {
        let metrics = TestMetrics()
        await #expect(throws: HTTPError.self) {
            _ = try await Self.respond(metrics) { throw HTTPError(.badRequest) }
        }
        let dimensions = Self.dimensions("400", route: "NotFound")
        #expect(try metrics.expectCounter("hb.requests", dimensions).totalValue == 1)
        let errors = try metrics.expectCounter(
            "hb.request.errors", [("http.route", "NotFound"), ("http.request.method", "GET"), ("error.type", "400")])
        #expect(errors.totalValue == 1)
        #expect(try Self.active(metrics) == 0)
    }

    /// A malformed request is counted under the 400 Hummingbird answers it with; a request whose
    /// connection failed (nothing answered) under 499, not as a 500 of the server.
    @Test func theConnectionsErrorsAreCountedUnderWhatTheClientGot() async throws {
        struct Gone: Error {}
        let cases: [(any Error & Sendable, String)] = [
            (HTTPParserError.invalidChunkSize, "400"), (ConnectionFailure(underlying: Gone()), "499"),
            (Gone(), "500"),
        ]
        for (error, status) in cases {
            let metrics = TestMetrics()
            await #expect(throws: (any Error).self) { _ = try await Self.respond(metrics) { throw error } }
            #expect(
                try metrics.expectCounter("hb.requests", Self.dimensions(status, route: "NotFound")).totalValue == 1,
                "\(error)")
            #expect(try Self.active(metrics) == 0)
        }
    }

    // MARK: Support

    /// A request context without a channel: the middleware needs only a logger and a route.
    struct StubSource: RequestContextSource {
        var logger: Logger
    }

    struct Context: RequestContext {
        typealias Source = StubSource
        var coreContext: CoreRequestContextStorage
        init(source: StubSource) { coreContext = .init(source: source) }
    }

    /// What a body wrote, and whether it finished.
    final class Written: Sendable {
        let state = Mutex<(pieces: [String], finished: Bool)>(([], false))
    }

    /// A response body writer that keeps what it is given.
    struct Collector: ResponseBodyWriter {
        let written: Written

        mutating func write(_ buffer: ByteBuffer) async throws {
            written.state.withLock { $0.pieces.append(String(buffer: buffer)) }
        }

        mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
            for buffer in buffers { try await write(buffer) }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
            written.state.withLock { $0.finished = true }
        }
    }

    /// `GET /x` through the middleware, answered by `handler`.
    static func respond(
        _ metrics: TestMetrics, _ handler: @escaping @Sendable () async throws -> Response
    ) async throws -> Response {
        var logger = Logger(label: "stratus.tests.request-metrics")
        logger.logLevel = .critical
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/x"),
            body: .init(buffer: ByteBuffer()))
        return try await RequestMetricsMiddleware<Context>(factory: metrics).handle(
            request, context: Context(source: StubSource(logger: logger))
        ) { _, _ in try await handler() }
    }

    /// A body of unknown length writing `pieces` pieces, then failing or finishing.
    static func streamed(pieces: Int, thenFail: Bool) -> Response {
        Response(
            status: .ok,
            body: ResponseBody { writer in
                for piece in 0..<pieces { try await writer.write(ByteBuffer(string: "piece \(piece)")) }
                if thenFail { throw HTTPError(.internalServerError) }
                try await writer.finish(nil)
            })
    }

    static func dimensions(_ status: String, route: String = "Unknown") -> [(String, String)] {
        [("http.route", route), ("http.request.method", "GET"), ("http.response.status_code", status)]
    }

    static func requests(_ metrics: TestMetrics, status: String) throws -> Int64 {
        try metrics.expectCounter("hb.requests", dimensions(status)).totalValue
    }

    static func active(_ metrics: TestMetrics) throws -> Double? {
        try metrics.expectMeter("http.server.active_requests", [("http.request.method", "GET")]).lastValue
    }
}
