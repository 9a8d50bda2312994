import Foundation
import Testing

@Suite("stratus import: streaming")
struct CLIImportStreamingTests {
    /// One export line: a record of zone `Notes`, with a parent when given.
    private func line(_ name: String, parent: String? = nil) -> String {
        let parentJSON =
            parent.map { #", "parent": {"type": "REFERENCE", "value": ["\#($0)", "Notes", "__defaultOwner__", "0"]}"# }
            ?? ""
        return #"{"recordName": "\#(name)", "recordType": "Note", "zoneName": "Notes", "ownerName": "__defaultOwner__""#
            + parentJSON + #", "fields": {"n": {"type": "STRING", "value": "\#(name)"}}}"#
    }

    /// The record names an export of `zone` holds, with their parents.
    private func exported(_ zone: String, in workspace: CLIWorkspace) async throws -> [String: String] {
        let outcome = try await workspace.stratus("export", "--zone", zone)
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        var records: [String: String] = [:]
        for text in outcome.output.split(separator: "\n") {
            let record = try #require(try json(String(text)) as? [String: Any])
            let parent = (record["parent"] as? [String: Any])?["value"] as? [String]
            records[record["recordName"] as? String ?? ""] = parent?.first ?? ""
        }
        return records
    }

    @Test func aChildBeforeItsParentWaitsForItAcrossRequests() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        // The child is on line 1, its parent on line 451: two requests later (400 a request).
        var lines = [line("child", parent: "parent")]
        lines += (1..<450).map { line("r\($0)") }
        lines.append(line("parent"))
        let outcome = try await workspace.stratus("import", "--zone", "Copy", input: lines.joined(separator: "\n"))
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(outcome.output.hasPrefix("imported 451 records into zone Copy in "))
        let records = try await exported("Copy", in: workspace)
        #expect(records.count == 451)
        #expect(records["child"] == "parent")
    }

    @Test func aParentThatNeverComesFailsTheChildOnly() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let input = [line("orphan", parent: "nowhere"), line("fine")].joined(separator: "\n")
        let outcome = try await workspace.stratus("import", "--zone", "Copy", input: input)
        #expect(outcome.status == 1)
        #expect(outcome.errorOutput.contains("error: record 'orphan': referenceViolation: "))
        #expect(outcome.errorOutput.hasSuffix("error: 1 of 2 records were not imported (1 were)\n"))
        #expect(try await exported("Copy", in: workspace).keys.sorted() == ["fine"])
    }

    @Test func aMalformedLineStopsAtOnceAndSaysWhatWasImported() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        var lines = (1...499).map { line("r\($0)") }
        lines.append(#"{"recordName": "bad", "recordType": "Note", "fields": {}}"#)
        lines += (501...900).map { line("r\($0)") }
        let outcome = try await workspace.stratus("import", "--zone", "Copy", input: lines.joined(separator: "\n"))
        #expect(outcome.status == 65)
        #expect(
            outcome.errorOutput
                == "created zone Copy\nerror: line 500 is not a record as `stratus export` writes it: missing key 'zoneName'; 400 records were imported before it (they stay saved)\n"
        )
        #expect(try await exported("Copy", in: workspace).count == 400)
    }

    @Test func aMalformedFirstLineCreatesNothing() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus("import", "--zone", "Copy", input: "not json\n" + line("a"))
        #expect(outcome.status == 65)
        #expect(outcome.errorOutput.hasPrefix("error: line 1 is not a record as `stratus export` writes it: "))
        #expect(outcome.errorOutput.hasSuffix("; no record was imported before it\n"))
        let zones = try await workspace.stratus("zones", "list")
        #expect(!zones.lines.contains("Copy"))
    }

    /// Progress is drawn on a terminal (here a pseudo-terminal made by `script`), never into a
    /// pipe or a file.
    @Test func progressOnlyOnATerminal() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let file = workspace.directory.appendingPathComponent("in.jsonl")
        try (1...1000).map { line("r\($0)") }.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let plain = try await workspace.stratus("import", "--zone", "Plain", "--input", file.path)
        #expect(plain.status == 0, "\(plain.errorOutput)")
        #expect(plain.errorOutput == "created zone Plain\n")

        let command = [
            try StratusExecutable.url().path, "import", "--zone", "Tty", "--input", file.path, "--backend",
            workspace.backend,
        ].map { "'\($0)'" }.joined(separator: " ")
        let tty = try await StratusExecutable.run(
            ["-q", "-e", "-c", command, "/dev/null"], in: workspace.directory, executable: "/usr/bin/script")
        #expect(tty.status == 0, "\(tty.output)")
        #expect(tty.output.contains(" records imported  "))
        #expect(tty.output.contains("\r\u{1B}[K"))
        #expect(tty.output.contains("imported 1,000 records into zone Tty in "))
    }
}
