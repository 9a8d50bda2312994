import Foundation
import Hummingbird
import Logging
import MetricsTestKit
import NIOCore
import Synchronization
import Testing

@testable import StratusServer

/// The per-request metrics, recorded by Stratus's own middleware on a real loopback listener:
/// whole answers and answers in pieces are counted and timed, refusals counted as errors, and
/// a whole answer leaves in one write (its status line, headers and body in the client's first
/// read).
@Suite("RequestMetricsMiddleware: requests counted and timed, whole answers in one write")
struct RequestMetricsMiddlewareTests {
    @Test func answersAreCountedAndTimedAndAWholeOneArrivesInOneRead() async throws {
        let metrics = TestMetrics()
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: Self.router(metrics), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { port.yield($0.localAddress?.port ?? 0) }, logger: Self.quiet)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that fails before listening ends the wait for its port.
                defer { port.finish() }
                try await application.run()
            }
            var iterator = ports.makeAsyncIterator()
            let bound = try #require(await iterator.next())

            let whole = try await Self.firstRead(port: bound, path: "/whole")
            #expect(whole.hasPrefix("HTTP/1.1 200"))
            #expect(whole.hasSuffix(Self.wholeBody), "the body did not come in the first read: \(whole.prefix(300))")
            let pieces = try await Self.firstRead(port: bound, path: "/pieces", until: "0\r\n\r\n")
            #expect(pieces.contains("piece 2"))
            let refused = try await Self.firstRead(port: bound, path: "/refused")
            #expect(refused.hasPrefix("HTTP/1.1 400"))
            let broken = try await Self.firstRead(port: bound, path: "/broken", until: Self.untilClosed)
            #expect(broken.contains("piece 0") && !broken.hasSuffix("0\r\n\r\n"))

            // An answer in pieces is recorded once its last piece is written (or its writing
            // failed), which may be just after the client read it.
            let active = try metrics.expectMeter("http.server.active_requests", [("http.request.method", "GET")])
            for _ in 0..<500 where active.lastValue != 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(active.lastValue == 0)

            for (route, status) in [("/whole", "200"), ("/pieces", "200"), ("/refused", "400"), ("/broken", "200")] {
                let dimensions = [
                    ("http.route", route), ("http.request.method", "GET"), ("http.response.status_code", status),
                ]
                #expect(try metrics.expectCounter("hb.requests", dimensions).totalValue == 1, "\(route)")
                if status == "200" {
                    #expect(try metrics.expectTimer("http.server.request.duration", dimensions).values.count == 1)
                }
            }
            let errors = try metrics.expectCounter(
                "hb.request.errors",
                [("http.route", "/refused"), ("http.request.method", "GET"), ("error.type", "400")])
            #expect(errors.totalValue == 1)
            group.cancelAll()
        }
    }

    @Test func aStreamedAnswerIsRecordedOnceWrittenOrDroppedNeverTwice() {
        let count = Mutex(0)
        do {
            let written = RequestRecording { count.withLock { $0 += 1 } }
            written.finish()
            written.finish()
        }
        #expect(count.withLock { $0 } == 1, "finished twice, then released: recorded once")
        do {
            _ = RequestRecording { count.withLock { $0 += 1 } }
        }
        #expect(count.withLock { $0 } == 2, "released without being written: recorded then")
    }

    /// The server's logger: the cancellation that stops it at the end is not news.
    static var quiet: Logger {
        var logger = Logger(label: "stratus.tests.request-metrics")
        logger.logLevel = .critical
        return logger
    }

    static let wholeBody = String(repeating: "w", count: 700)

    static func router(_ metrics: TestMetrics) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestMetricsMiddleware(factory: metrics))
        router.get("/whole") { _, _ in
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: wholeBody)))
        }
        router.get("/pieces") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for piece in 0..<3 { try await writer.write(ByteBuffer(string: "piece \(piece)")) }
                    try await writer.finish(nil)
                })
        }
        router.get("/refused") { _, _ -> Response in throw HTTPError(.badRequest) }
        router.get("/broken") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "piece 0"))
                    throw HTTPError(.internalServerError)
                })
        }
        return router
    }

    /// Read on until the server closes the connection.
    static let untilClosed = "\u{0}closed"

    /// Sends `GET path` on a new connection and returns what the first `recv` brings, read on
    /// until `until` ends it when given (or the connection closes): on a thread of its own, with
    /// a 10 s receive timeout.
    ///
    /// A whole answer written in two writes may still arrive in one read when the client reads
    /// after both: the first-read check catches a regression most of the time, not always.
    static func firstRead(port: Int, path: String, until end: String? = nil) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingFirstRead(port: port, path: path, until: end) })
            }
        }
    }

    private static func blockingFirstRead(port: Int, path: String, until end: String?) throws -> String {
        let connection = try RawConnection(port: port)
        connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        var received = connection.receive()
        while let end, !received.hasSuffix(end) {
            let more = connection.receive()
            guard !more.isEmpty else { break }
            received += more
        }
        return received
    }
}
