import Foundation
import Testing

@Suite("stratus: zones and records")
struct CLIRecordTests {
    @Test func zoneCRUD() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let created = try await workspace.stratus("zones", "create", "Notes", "Archive")
        #expect(created.status == 0, "\(created.errorOutput)")
        #expect(created.lines.prefix(2) == ["created zone Notes", "created zone Archive"])

        let listed = try await workspace.stratus("zones", "list", "--json")
        #expect(try json(listed.output) as? [String] == ["Archive", "Notes", "_defaultZone"])

        let deleted = try await workspace.stratus("zones", "delete", "Archive")
        #expect(deleted.output == "deleted zone Archive\n")
        let after = try await workspace.stratus("zones", "list")
        #expect(after.output == "Notes\n_defaultZone\n")
    }

    @Test func recordCRUDWithTypedFields() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        _ = try await workspace.stratus("zones", "create", "Notes")
        let created = try await workspace.stratus(
            "records", "create", "--zone", "Notes", "--type", "Note", "--name", "n1", "title=Hello", "count:int=3",
            "when:date=2026-01-01T00:00:00Z", "tags:string-list=a,b\\,c", "done:bool=true", "ratio:double=0.5")
        #expect(created.status == 0, "\(created.errorOutput)")
        #expect(created.lines[0].hasPrefix("Note n1  zone Notes  tag "))
        #expect(
            Array(created.lines[1...6]) == [
                "  count:int=3", "  done:bool=true", "  ratio:double=0.5", "  tags:string-list=a,b\\,c",
                "  title=Hello",
                "  when:date=2026-01-01T00:00:00Z",
            ])

        let fetched = try await workspace.stratus("records", "fetch", "--zone", "Notes", "n1", "--json")
        let records = try #require(try json(fetched.output) as? [[String: Any]])
        let fields = try #require(records.first?["fields"] as? [String: [String: Any]])
        #expect(fields["count"]?["type"] as? String == "INT64")
        #expect(fields["when"]?["value"] as? Double == 1_767_225_600)
        #expect(fields["tags"]?["type"] as? String == "LIST")

        let updated = try await workspace.stratus(
            "records", "update", "--zone", "Notes", "--name", "n1", "count:int=4", "--remove", "tags",
            "--fields-json", #"{"note": "from json", "done": null}"#)
        #expect(updated.status == 0, "\(updated.errorOutput)")
        #expect(updated.lines.contains("  count:int=4"))
        #expect(updated.lines.contains("  note=from json"))
        #expect(!updated.output.contains("tags"))
        #expect(!updated.output.contains("done"))

        let deleted = try await workspace.stratus("records", "delete", "--zone", "Notes", "n1")
        #expect(deleted.output == "deleted record n1\n")
        let gone = try await workspace.stratus("records", "fetch", "--zone", "Notes", "n1")
        #expect(gone.status == 1)
        #expect(gone.errorOutput == "error: unknownItem: Record 'n1' does not exist\n")
    }

    @Test func typedJSONFieldsAndDefaultZone() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let created = try await workspace.stratus(
            "records", "create", "--type", "Event", "--name", "e1", "--json", "--fields-json",
            #"{"at": {"type": "TIMESTAMP", "value": 1767225600.25}, "n": 7, "x": 2.5, "y": 1.0, "tags": ["a", "b"]}"#)
        #expect(created.status == 0, "\(created.errorOutput)")
        let record = try #require(try json(created.output) as? [String: Any])
        #expect(record["zoneName"] as? String == "_defaultZone")
        let fields = try #require(record["fields"] as? [String: [String: Any]])
        #expect(fields["at"]?["value"] as? Double == 1_767_225_600.25)
        #expect(fields["n"]?["type"] as? String == "INT64")
        #expect(fields["x"]?["type"] as? String == "DOUBLE")
        #expect(fields["y"]?["type"] as? String == "DOUBLE", "1.0 is a decimal number, not the integer 1")
    }

    @Test func updateDetectsNothingToDo() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus("records", "update", "--name", "n1")
        #expect(outcome.status == 64)
        #expect(outcome.errorOutput.contains("give fields to set"))
    }
}
