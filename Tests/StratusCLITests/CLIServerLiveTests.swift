import Foundation
import Testing

/// The data commands with `--server`: every operation runs on a real `stratusd` on loopback,
/// and what one command saves the next one reads back through the server.
@Suite("stratus --server: live operations")
struct CLIServerLiveTests {
    /// A server with zone Notes holding n1…n3 (priority 1…3), made with `stratus --server`.
    private func serverWithNotes() async throws -> CLIServer {
        let server = try CLIServer()
        let zone = try await server.stratus("zones", "create", "Notes")
        #expect(zone.status == 0, "\(zone.errorOutput)")
        #expect(zone.output == "created zone Notes\n")
        for n in 1...3 {
            let created = try await server.stratus(
                "records", "create", "--zone", "Notes", "--type", "Note", "--name", "n\(n)", "title=Note \(n)",
                "priority:int=\(n)")
            #expect(created.status == 0, "\(created.errorOutput)")
        }
        return server
    }

    @Test func zonesAndRecordsGoThroughTheServer() async throws {
        let server = try await serverWithNotes()
        let zones = try await server.stratus("zones", "list", "--json")
        #expect(try json(zones.output) as? [String] == ["Notes", "_defaultZone"], "\(zones.errorOutput)")

        let fetched = try await server.stratus("records", "fetch", "--zone", "Notes", "n2", "--json")
        #expect(fetched.status == 0, "\(fetched.errorOutput)")
        let records = try #require(try json(fetched.output) as? [[String: Any]])
        let fields = try #require(records.first?["fields"] as? [String: [String: Any]])
        #expect(fields["title"]?["value"] as? String == "Note 2")
        #expect(fields["priority"]?["value"] as? Int == 2)

        let updated = try await server.stratus("records", "update", "--zone", "Notes", "--name", "n2", "title=Two")
        #expect(updated.status == 0, "\(updated.errorOutput)")
        let again = try await server.stratus("records", "fetch", "--zone", "Notes", "n2")
        #expect(again.output.contains("  title=Two\n"), "\(again.output)")

        let traced = try await server.stratus("records", "fetch", "--zone", "Notes", "n1", "--log-level", "trace")
        #expect(traced.status == 0, "\(traced.errorOutput)")
        #expect(!traced.errorOutput.isEmpty && !server.leaksASecret(traced.output + traced.errorOutput))

        let missing = try await server.stratus("records", "fetch", "--zone", "Nowhere", "x")
        #expect(missing.status == 1)
        #expect(missing.errorOutput.hasPrefix("error: zoneNotFound: "), "\(missing.errorOutput)")
        #expect(!server.leaksASecret(missing.errorOutput))
    }

    @Test func aQueryFollowsTheServersCursors() async throws {
        let server = try await serverWithNotes()
        let sorted = try await server.stratus(
            "query", "--zone", "Notes", "--type", "Note", "--predicate", "priority >= 2", "--sort", "priority:desc",
            "--page-size", "1", "--json")
        #expect(sorted.status == 0, "\(sorted.errorOutput)")
        let records = try #require(try json(sorted.output) as? [[String: Any]])
        #expect(records.map { $0["recordName"] as? String } == ["n3", "n2"])
        let text = try await server.stratus("query", "--zone", "Notes", "--type", "Note", "--page-size", "2")
        #expect(text.errorOutput == "3 records in 2 pages\n")
    }

    @Test func changesWithATokenFromTheServer() async throws {
        let server = try await serverWithNotes()
        let all = try await server.stratus("changes", "zone", "--zone", "Notes", "--json")
        #expect(all.status == 0, "\(all.errorOutput)")
        let first = try #require(try json(all.output) as? [String: Any])
        #expect((first["changed"] as? [Any])?.count == 3)
        let token = try #require(first["token"] as? String)

        _ = try await server.stratus("records", "delete", "--zone", "Notes", "n3")
        let since = try await server.stratus("changes", "zone", "--zone", "Notes", "--token", token, "--json")
        let changes = try #require(try json(since.output) as? [String: Any])
        #expect((changes["changed"] as? [Any])?.isEmpty == true)
        #expect((changes["deleted"] as? [[String: String]]) == [["recordName": "n3", "recordType": "Note"]])

        let database = try await server.stratus("changes", "database", "--json")
        #expect(database.status == 0, "\(database.errorOutput)")
        let zones = try #require(try json(database.output) as? [String: Any])
        #expect((zones["changedZones"] as? [String])?.contains("Notes") == true, "\(database.output)")
    }

    @Test func exportAndImportThroughTheServer() async throws {
        let server = try await serverWithNotes()
        let exported = try await server.stratus("export", "--zone", "Notes")
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.output.split(separator: "\n").count == 3)
        let imported = try await server.stratus("import", "--zone", "Copy", input: exported.output)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.hasPrefix("imported 3 records into zone Copy in "))
        let copy = try await server.stratus("query", "--zone", "Copy", "--type", "Note", "--sort", "priority", "--json")
        let records = try #require(try json(copy.output) as? [[String: Any]])
        #expect(records.map { $0["recordName"] as? String } == ["n1", "n2", "n3"])
    }

    @Test func refusedCredentialsAreNotAuthenticatedAndNeverShown() async throws {
        let server = try CLIServer()
        let bogus = "bogus-session-0ddba11-never-printed"
        let file = server.workspace.appendingPathComponent("wrong.json").path
        try #"{"apiToken": "\#(server.apiToken)", "webAuthToken": "\#(bogus)"}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        let run = try await StratusExecutable.run(
            ["zones", "list", "--server", server.url, "--credentials-file", file, "--container", CLIServer.container],
            in: server.workspace)
        #expect(run.status == 1)
        #expect(run.errorOutput.hasPrefix("error: notAuthenticated: "), "\(run.errorOutput)")
        #expect(!server.leaksASecret(run.errorOutput) && !run.errorOutput.contains("0ddba11"))
    }

    @Test func theDemoRunsOnTheServer() async throws {
        let server = try CLIServer()
        let run = try await server.stratus("demo")
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(
            run.lines.first
                == "Stratus on stratusd at \(server.url) (development) — container \(CLIServer.container), private database"
        )
        #expect(run.output.contains("3 records changed since the beginning"))
        #expect(!server.leaksASecret(run.output + run.errorOutput))
    }

    /// `list`, `show` and `cancel` reach the server's journal (decision 0016.6).
    @Test func longLivedCommandsReachTheServersJournal() async throws {
        let server = try CLIServer()
        let listed = try await server.stratus("long-lived", "list", "--json")
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(try json(listed.output) as? [Any] != nil)
        let shown = try await server.stratus("long-lived", "show", "3C6B1E2A")
        #expect(shown.status == 1)
        #expect(shown.errorOutput == "error: unknownItem: no long-lived operation has ID '3C6B1E2A'\n")
        let cancelled = try await server.stratus("long-lived", "cancel", "3C6B1E2A")
        #expect(cancelled.status == 1)
        #expect(cancelled.errorOutput == "error: unknownItem: no long-lived operation has ID '3C6B1E2A'\n")
    }
}
