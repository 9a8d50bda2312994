import Foundation
import StratusTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `stratusd` as a user starts it: a real process on loopback, spoken to over HTTP.
@Suite("stratusd: start, health, credentials, shutdown")
struct StratusDaemonTests {
    private func send(_ method: String, _ path: String, to server: StratusDaemonProcess, body: String? = nil)
        async throws -> (status: Int, json: [String: Any])
    {
        var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? -1
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (status, json)
    }

    @Test func startsOnTheEmbeddedDefaultAndAnswersHealth() async throws {
        let server = try StratusDaemonProcess()
        defer { server.stop() }
        #expect(server.standardOutput.contains("backend sqlite:.stratus/stratus.sqlite"))
        #expect(FileManager.default.fileExists(atPath: server.directory.appending(".stratus/stratus.sqlite").path))
        let health = try await send("GET", "health", to: server)
        #expect(health.status == 200)
        #expect(health.json["status"] as? String == "ok")
    }

    @Test func healthSays503WhenTheBackendStopsAnsweringAndNothingMore() async throws {
        let database = try PostgreSQLPrivateServer()
        defer { database.stop() }
        let server = try StratusDaemonProcess(arguments: ["--backend", database.url.description])
        defer { server.stop() }
        #expect(try await send("GET", "health", to: server).status == 200)
        database.stop()
        let health = try await send("GET", "health", to: server)
        #expect(health.status == 503)
        #expect(health.json.keys.sorted() == ["status"], "the answer says nothing but its status: \(health.json)")
        #expect(health.json["status"] as? String == "unavailable")
        #expect(server.standardError.contains("health check failed"))
    }

    @Test func everyOtherRequestNeedsCredentials() async throws {
        let server = try StratusDaemonProcess(arguments: ["--backend", "memory:"])
        defer { server.stop() }
        for (method, path) in [
            ("POST", "database/1/iCloud.com.example/development/public/records/lookup"),
            ("POST", "database/1/iCloud.com.example/production/private/records/modify"),
            ("GET", "database/1/iCloud.com.example/development/public/zones/list"), ("GET", "metrics"),
            ("GET", "no/such/path"), ("DELETE", "health/../database"),
        ] {
            let answer = try await send(method, path, to: server, body: method == "POST" ? #"{"records": []}"# : nil)
            #expect(answer.status == 401, "\(method) \(path)")
            #expect(answer.json["serverErrorCode"] as? String == "AUTHENTICATION_FAILED", "\(method) \(path)")
            #expect((answer.json["reason"] as? String)?.contains("credentials") == true, "\(answer.json)")
            #expect((answer.json["uuid"] as? String)?.isEmpty == false)
        }
    }

    @Test func logsOneLinePerRequestWithoutTheQuery() async throws {
        let server = try StratusDaemonProcess(arguments: ["--backend", "memory:"])
        _ = try await send("GET", "health", to: server)
        var request = URLRequest(
            url: URL(
                string: server.baseURL.absoluteString
                    + "/database/1/c/development/public/records/lookup?ckAPIToken=secret-token-value")!)
        request.httpMethod = "POST"
        _ = try await URLSession.shared.data(for: request)
        #expect(server.stop() == 0, "a SIGTERM stops stratusd gracefully, with status 0")
        let log = server.standardError
        #expect(log.contains("stratus.http.path=/health") && log.contains("stratus.http.status=200"))
        #expect(log.contains("stratus.http.status=401"))
        #expect(
            log.contains("stratus.location=memory:") && log.contains("serving"), "the start is logged with the store")
        #expect(!log.contains("secret-token-value"), "a token in the query is never logged")
        #expect(
            log.contains("stratus.http.path=/database/1/{container}/{environment}/{database}/records/lookup"),
            "a routed request is logged by its route's template, so no capability in a path is logged")
    }

    @Test func aBadPortOrBackendFailsWithAMessage() throws {
        #expect(throws: StratusDaemonProcess.StartFailure.self) {
            _ = try StratusDaemonProcess(arguments: ["--backend", "nosuch:thing"])
        }
        #expect(throws: StratusDaemonProcess.StartFailure.self) {
            _ = try StratusDaemonProcess(arguments: ["--port", "70000"])
        }
    }
}
