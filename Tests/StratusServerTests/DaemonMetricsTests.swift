import Foundation
import StratusTestSupport
import Testing

/// `stratusd`'s Prometheus listener: apart from the API, on loopback unless a token guards it.
@Suite("stratusd: metrics")
struct DaemonMetricsTests {
    /// The value of `hb_requests` for `GET /health` answered 200, in a Prometheus exposition.
    private func healthCount(in exposition: String) -> Int {
        let line = exposition.split(separator: "\n").first {
            $0.hasPrefix("hb_requests{") && $0.contains(#"http_route="/health""#)
                && $0.contains(#"http_response_status_code="200""#)
        }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
    }

    private func scrape(_ server: StratusDaemonProcess, headers: [String] = []) throws -> CommandRun {
        try CommandRun.curl(["--fail"] + headers.flatMap { ["--header", $0] } + [server.metricsURL.absoluteString])
    }

    private func health(_ server: StratusDaemonProcess, times: Int) throws {
        for _ in 0..<times {
            let answer = try CommandRun.curl(["--fail", server.baseURL.appendingPathComponent("health").absoluteString])
            #expect(answer.status == 0, "\(answer.standardError)")
        }
    }

    @Test func countsRequestsPerRouteOnItsOwnLoopbackListener() throws {
        let server = try StratusDaemonProcess(arguments: ["--backend", "memory:"])
        defer { server.stop() }
        #expect(server.metricsURL.host == "127.0.0.1", "metrics bind loopback by default")
        #expect(server.metricsURL.port != server.baseURL.port)
        try health(server, times: 3)
        let first = try scrape(server)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(healthCount(in: first.standardOutput) == 3, "\(first.standardOutput)")
        #expect(first.standardOutput.contains("http_server_request_duration_bucket{"), "a latency histogram")
        try health(server, times: 2)
        let second = try scrape(server)
        #expect(healthCount(in: second.standardOutput) == 5, "scrapes are not API requests; the count moves by 2")
        let apiMetrics = try CommandRun.curl(
            [
                "--write-out", "%{http_code}", "--output", "/dev/null",
                server.baseURL.appendingPathComponent("metrics").absoluteString,
            ])
        #expect(apiMetrics.standardOutput == "401", "the API listener does not serve /metrics")
    }

    /// A whole answer leaves in one write, its status line, headers and body in the client's
    /// first read: the per-request metrics do not wrap its body (decision 0012.5). (Written in
    /// two writes, it may still arrive in one read when the client reads after both, so this
    /// catches a regression most of the time, not always.)
    @Test func aWholeAnswerArrivesInOneRead() throws {
        let server = try StratusDaemonProcess(arguments: ["--backend", "memory:"])
        defer { server.stop() }
        let connection = try RawConnection(port: try #require(server.baseURL.port))
        connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let answer = connection.receive()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let length = parts.first?.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
        let body = parts.dropFirst().joined(separator: "\r\n\r\n")
        #expect(length != nil && length! > 0 && body.utf8.count == length, "the first read: \(answer)")
    }

    @Test func aBearerTokenFileGuardsTheScrape() throws {
        let directory = try TemporaryDirectory(prefix: "metrics-token")
        defer { try? directory.remove() }
        let tokenFile = directory.appending("token")
        try Data("s3cret-scrape-token\n".utf8).write(to: tokenFile)
        let server = try StratusDaemonProcess(
            arguments: ["--backend", "memory:"], environment: ["STRATUS_METRICS_BEARER_TOKEN_FILE": tokenFile.path])
        defer { server.stop() }
        try health(server, times: 1)
        #expect(try scrape(server).status == 22, "no token: 401, which curl --fail reports as 22")
        #expect(try scrape(server, headers: ["Authorization: Bearer wrong"]).status == 22)
        let allowed = try scrape(server, headers: ["Authorization: Bearer s3cret-scrape-token"])
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(healthCount(in: allowed.standardOutput) == 1, "\(allowed.standardOutput)")
    }

    @Test func metricsOffLoopbackWithoutATokenAreRefused() throws {
        let run = try CommandRun.stratusd(["--metrics-host", "0.0.0.0"])
        #expect(run.status != nil && run.status != 0, "stratusd refuses to start")
        #expect(run.standardError.contains("metricsHost (from --metrics-host)"), "\(run.standardError)")
        #expect(run.standardError.contains("bearer token"))
        let fromEnvironment = try CommandRun.stratusd([], environment: ["STRATUS_METRICS_HOST": "192.0.2.1"])
        #expect(fromEnvironment.status != nil && fromEnvironment.status != 0)
        #expect(fromEnvironment.standardError.contains("environment variable STRATUS_METRICS_HOST"))
    }
}
