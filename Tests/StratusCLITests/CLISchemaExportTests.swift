import Foundation
import Testing

@Suite("stratus schema export")
struct CLISchemaExportTests {
    /// Records saved through the tool create record types and fields just in time; the export
    /// prints them with development's indexes, validates, and leaves out a field whose type is
    /// not known yet.
    @Test func theJustInTimeSchemaOfADatabase() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let store = ["--backend", "sqlite:store.sqlite"]
        let zone = try await StratusExecutable.run(["zones", "create", "Z"] + store, in: workspace.directory)
        #expect(zone.status == 0, "\(zone.errorOutput)")
        for (name, fields) in [
            ("n1", ["title=Hi", "tags:string-list=a,b", "when:date=2026-01-01T00:00:00Z", "rating:double=2.5"]),
            ("n2", ["title=Yo", "owner:reference=n1", "empty:string-list="]),
        ] {
            let created = try await StratusExecutable.run(
                ["records", "create", "--zone", "Z", "--type", "Note", "--name", name] + store + fields,
                in: workspace.directory)
            #expect(created.status == 0, "\(created.errorOutput)")
        }
        let exported = try await StratusExecutable.run(
            ["schema", "export", "--output", "dev.ckdb"] + store, in: workspace.directory)
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.errorOutput.contains("Note.empty: no type known yet"))
        let text = try String(contentsOf: workspace.directory.appendingPathComponent("dev.ckdb"), encoding: .utf8)
        #expect(
            text == """
                DEFINE SCHEMA

                    RECORD TYPE Note (
                        owner REFERENCE QUERYABLE SORTABLE,
                        rating NUMBER QUERYABLE SORTABLE,
                        tags LIST<STRING> QUERYABLE,
                        title STRING QUERYABLE SORTABLE SEARCHABLE,
                        when TIMESTAMP QUERYABLE SORTABLE
                    );

                """)
        let validated = try await StratusExecutable.run(["schema", "validate", "dev.ckdb"], in: workspace.directory)
        #expect(validated.status == 0, "\(validated.errorOutput)")
    }
}
