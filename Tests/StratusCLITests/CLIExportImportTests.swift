import Foundation
import Testing

@Suite("stratus: export and import")
struct CLIExportImportTests {
    /// The records of an export, by name, without what the server sets on save.
    private func comparable(_ export: String, zone: String) throws -> [String: String] {
        var records: [String: String] = [:]
        for line in export.split(separator: "\n") {
            var record = try #require(try json(String(line)) as? [String: Any])
            for key in ["recordChangeTag", "created", "modified", "createdBy", "modifiedBy"] { record[key] = nil }
            #expect(record["zoneName"] as? String == zone)
            record["zoneName"] = nil
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            records[record["recordName"] as? String ?? ""] = String(decoding: data, as: UTF8.self)
        }
        return records
    }

    @Test func roundTripIsExactIncludingTypes() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        _ = try await workspace.stratus("zones", "create", "Notes")
        let fields = [
            "title=Hello", "count:int=3", "big:int64=9007199254740993", "small:int8=-5", "ratio:float=1.5",
            "x:double=0.1", "done:bool=false", "when:date=2026-01-01T12:34:56.789Z", "blob:bytes=aGVsbG8=",
            "place:location=48.85,2.35", "tags:string-list=a,b", "scores:int-list=1,2,3",
        ]
        for (name, extra) in [("parent", [String]()), ("child", ["link:reference=parent"])] {
            let outcome = try await StratusExecutable.run(
                ["records", "create", "--zone", "Notes", "--type", "Note", "--name", name] + fields + extra
                    + ["--backend", workspace.backend], in: workspace.directory)
            #expect(outcome.status == 0, "\(outcome.errorOutput)")
        }
        // A parent saved after its child in the change log, so import must reorder.
        let child = try await workspace.stratus(
            "records", "update", "--zone", "Notes", "--name", "child", "--fields-json", #"{"n": 1}"#)
        #expect(child.status == 0)

        let exported = try await workspace.stratus("export", "--zone", "Notes")
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.errorOutput.hasPrefix("exported 2 records from zone Notes in "))
        #expect(exported.errorOutput.hasSuffix(" records/s)\n"))

        let copy = "sqlite://\(workspace.directory.path)/copy.sqlite"
        let imported = try await StratusExecutable.run(
            ["import", "--zone", "Copy", "--backend", copy], in: workspace.directory, input: exported.output)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.hasPrefix("imported 2 records into zone Copy in "))
        #expect(imported.output.hasSuffix(" records/s)\n"))
        #expect(imported.errorOutput == "created zone Copy\n")

        let again = try await StratusExecutable.run(
            ["export", "--zone", "Copy", "--backend", copy], in: workspace.directory)
        let original = try comparable(exported.output, zone: "Notes")
        let copied = try comparable(again.output, zone: "Copy")
        #expect(original.count == 2)
        #expect(copied == original.mapValues { $0.replacingOccurrences(of: "\"Notes\"", with: "\"Copy\"") })

        // Importing the same file again changes nothing but the change tags.
        let twice = try await StratusExecutable.run(
            ["import", "--zone", "Copy", "--backend", copy], in: workspace.directory, input: exported.output)
        #expect(twice.status == 0)
    }

    @Test func exportToAFileAndImportFromOne() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        _ = try await workspace.stratus("zones", "create", "Notes")
        _ = try await workspace.stratus("records", "create", "--zone", "Notes", "--type", "Note", "--name", "a", "t=1")
        let file = workspace.directory.appendingPathComponent("notes.jsonl").path
        let exported = try await workspace.stratus("export", "--zone", "Notes", "--output", file)
        #expect(exported.status == 0)
        #expect(exported.output.isEmpty)
        let imported = try await workspace.stratus("import", "--zone", "Notes2", "--input", file, "--json")
        let summary = try #require(try json(imported.output) as? [String: Any])
        #expect(Set(summary.keys) == ["imported", "zone", "seconds", "recordsPerSecond"])
        #expect(summary["imported"] as? Int == 1)
        #expect(summary["zone"] as? String == "Notes2")
        #expect((summary["seconds"] as? Double ?? -1) >= 0)
    }

    @Test func badLinesAreDataErrors() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus("import", "--zone", "Z", input: "\n{\"recordName\": \"x\"}\n")
        #expect(outcome.status == 65)
        #expect(outcome.errorOutput.hasPrefix("error: line 2 is not a record as `stratus export` writes it: "))
        let missing = try await workspace.stratus("import", "--zone", "Z", "--input", "/no/such/file.jsonl")
        #expect(missing.status == 66)
        #expect(missing.errorOutput == "error: cannot read '/no/such/file.jsonl'\n")
    }
}
