import Foundation
import Testing

@Suite("stratus: queries and changes")
struct CLIQueryAndChangesTests {
    /// A workspace with zone Notes holding n1…n5 (priority 1…5).
    private func workspaceWithNotes() async throws -> CLIWorkspace {
        let workspace = try CLIWorkspace()
        _ = try await workspace.stratus("zones", "create", "Notes")
        for n in 1...5 {
            let outcome = try await workspace.stratus(
                "records", "create", "--zone", "Notes", "--type", "Note", "--name", "n\(n)", "title=Note \(n)",
                "priority:int=\(n)")
            #expect(outcome.status == 0, "\(outcome.errorOutput)")
        }
        return workspace
    }

    @Test func queryWithPredicateSortAndCursors() async throws {
        let workspace = try await workspaceWithNotes()
        defer { workspace.remove() }
        let sorted = try await workspace.stratus(
            "query", "--zone", "Notes", "--type", "Note", "--predicate", "priority >= 2", "--sort", "priority:desc",
            "--page-size", "2", "--json")
        #expect(sorted.status == 0, "\(sorted.errorOutput)")
        let records = try #require(try json(sorted.output) as? [[String: Any]])
        #expect(records.map { $0["recordName"] as? String } == ["n5", "n4", "n3", "n2"])

        let limited = try await workspace.stratus(
            "query", "--zone", "Notes", "--type", "Note", "--sort", "priority", "--page-size", "2", "--limit", "3")
        #expect(limited.lines.filter { $0.hasPrefix("Note ") }.count == 3)
        #expect(limited.lines.first?.hasPrefix("Note n1 ") == true)
        #expect(limited.errorOutput == "3 records in 2 pages\n")

        let bad = try await workspace.stratus(
            "query", "--zone", "Notes", "--type", "Note", "--predicate", "priority >>> 2")
        #expect(bad.status == 1)
        #expect(bad.errorOutput.hasPrefix("error: invalidArguments: "))
    }

    @Test func zoneChangesWithTokenRoundTrip() async throws {
        let workspace = try await workspaceWithNotes()
        defer { workspace.remove() }
        let all = try await workspace.stratus("changes", "zone", "--zone", "Notes", "--json")
        #expect(all.status == 0, "\(all.errorOutput)")
        let first = try #require(try json(all.output) as? [String: Any])
        #expect((first["changed"] as? [Any])?.count == 5)
        let token = try #require(first["token"] as? String)

        let none = try await workspace.stratus("changes", "zone", "--zone", "Notes", "--token", token)
        #expect(none.lines.first?.hasPrefix("token ") == true)

        _ = try await workspace.stratus("records", "update", "--zone", "Notes", "--name", "n2", "title=Changed")
        _ = try await workspace.stratus("records", "delete", "--zone", "Notes", "n3")
        let since = try await workspace.stratus("changes", "zone", "--zone", "Notes", "--token", token, "--json")
        let changes = try #require(try json(since.output) as? [String: Any])
        let changed = try #require(changes["changed"] as? [[String: Any]])
        #expect(changed.map { $0["recordName"] as? String } == ["n2"])
        #expect((changes["deleted"] as? [[String: String]]) == [["recordName": "n3", "recordType": "Note"]])
        #expect(changes["token"] as? String != token)

        let text = try await workspace.stratus("changes", "zone", "--zone", "Notes", "--token", token)
        #expect(text.lines.first?.hasPrefix("changed Note n2  zone Notes") == true)
        #expect(text.lines.contains("deleted Note n3"))
    }

    @Test func databaseChangesWithToken() async throws {
        let workspace = try await workspaceWithNotes()
        defer { workspace.remove() }
        let all = try await workspace.stratus("changes", "database", "--json")
        let first = try #require(try json(all.output) as? [String: Any])
        #expect(first["changedZones"] as? [String] == ["Notes"])
        let token = try #require(first["token"] as? String)

        _ = try await workspace.stratus("zones", "create", "Later")
        _ = try await workspace.stratus("zones", "delete", "Notes")
        let since = try await workspace.stratus("changes", "database", "--token", token)
        #expect(since.lines.contains("changed zone Later"))
        #expect(since.lines.contains("deleted zone Notes"))
    }

    @Test func badTokenIsAUsageError() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus("changes", "zone", "--token", "not-a-token")
        #expect(outcome.status == 64)
        #expect(
            outcome.errorOutput
                == "error: --token is not a change token printed by stratus (base64 of an archived CKServerChangeToken)\n"
        )
    }
}
