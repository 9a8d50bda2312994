import Foundation
import StratusTestSupport
import Testing

/// `stratusd`'s listener settings from the configuration, the command line's overrides, and
/// the limits they set.
@Suite("stratusd: configuration, limits")
struct DaemonConfigurationTests {
    @Test func theEnvironmentSetsTheHostAndTheCommandLineOverridesIt() throws {
        let configured = try StratusDaemonProcess(
            arguments: ["--backend", "memory:"], environment: ["STRATUS_SERVER_HOST": "127.0.0.2"])
        defer { configured.stop() }
        #expect(configured.baseURL.host == "127.0.0.2", "\(configured.standardOutput)")
        let overridden = try StratusDaemonProcess(
            arguments: ["--backend", "memory:", "--host", "127.0.0.3"],
            environment: ["STRATUS_SERVER_HOST": "127.0.0.2"])
        defer { overridden.stop() }
        #expect(overridden.baseURL.host == "127.0.0.3")
    }

    @Test func aBadPortNamesTheKeyAndWhereItCameFrom() throws {
        let run = try CommandRun.stratusd([], environment: ["STRATUS_SERVER_PORT": "70000"])
        #expect(run.status != nil && run.status != 0)
        #expect(
            run.standardError.contains("'serverPort' must be a port number from 0 to 65535"), "\(run.standardError)")
        #expect(run.standardError.contains("(from environment variable STRATUS_SERVER_PORT)"))
        let flag = try CommandRun.stratusd(["--metrics-port", "65536"])
        #expect(flag.status != nil && flag.status != 0)
        #expect(flag.standardError.contains("--metrics-port must be 0…65535"), "\(flag.standardError)")
    }

    @Test func aBodyOverTheLimitIsRefusedBeforeItIsRead() throws {
        let server = try StratusDaemonProcess(
            arguments: ["--backend", "memory:"], environment: ["STRATUS_SERVER_MAX_BODY_BYTES": "100"])
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("database/1/c/development/public/records/modify")
        let large = try CommandRun.curl(["--data", String(repeating: "x", count: 101), url.absoluteString])
        #expect(large.standardOutput.contains("limitExceeded"), "\(large.standardOutput)")
        #expect(large.standardOutput.contains("limit of 100 bytes"))
        let small = try CommandRun.curl(["--data", String(repeating: "x", count: 100), url.absoluteString])
        #expect(small.standardOutput.contains("AUTHENTICATION_FAILED"), "within the limit, credentials decide")
    }

    @Test func pastTheConnectionLimitNewConnectionsWait() throws {
        let server = try StratusDaemonProcess(
            arguments: ["--backend", "memory:"], environment: ["STRATUS_SERVER_MAX_CONNECTIONS": "1"])
        defer { server.stop() }
        let health = server.baseURL.appendingPathComponent("health").absoluteString
        var holder: RawConnection? = try RawConnection(port: server.baseURL.port ?? 0)
        holder?.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(holder?.receive().hasPrefix("HTTP/1.1 200") == true, "the first connection is served, and kept")
        let waiting = try CommandRun(
            URL(fileURLWithPath: "/usr/bin/curl"), ["--silent", "--max-time", "2", health])
        #expect(waiting.status == 28, "a second connection is not served while the first is open")
        _ = holder
        holder = nil
        Thread.sleep(forTimeInterval: 0.3)
        let served = try CommandRun.curl([health])
        #expect(served.status == 0 && served.standardOutput.contains("ok"), "\(served.standardError)")
    }

    @Test func anIdleConnectionIsClosedAfterThirtySeconds() throws {
        let server = try StratusDaemonProcess(arguments: ["--backend", "memory:"])
        defer { server.stop() }
        let connection = try RawConnection(port: server.baseURL.port ?? 0)
        let start = Date()
        #expect(!connection.waitForClose(timeout: 25), "an idle connection stays open for a while")
        #expect(connection.waitForClose(timeout: 15), "and is closed once it has been idle for 30 s")
        #expect(Date().timeIntervalSince(start) >= 29)
    }
}
