import Foundation
import Testing

/// `stratus schema import`, `export` and `reset` on a local backend (decision 0020.7).
@Suite("stratus schema import, export, reset")
struct CLISchemaImportTests {
    static let production = """
        DEFINE SCHEMA

            RECORD TYPE Item (
                "___recordID" REFERENCE QUERYABLE,
                k INT64 QUERYABLE SORTABLE,
                title STRING QUERYABLE SEARCHABLE
            );

        """

    /// Imports a production schema, exports it back unchanged, enforces it on saves, refuses a
    /// change that is not additive, and resets development to it.
    @Test func importExportAndResetRoundTrip() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let store = ["--backend", "sqlite:store.sqlite", "--container", "iCloud.example"]
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errorOutput: String) {
            let outcome = try await StratusExecutable.run(arguments + store, in: workspace.directory)
            return (outcome.status, outcome.output, outcome.errorOutput)
        }
        func write(_ text: String, _ name: String) throws {
            try text.write(to: workspace.directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write(Self.production, "prod.ckdb")
        let imported = try await run(["schema", "import", "prod.ckdb", "--production"])
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.contains("imported 1 record type, 3 fields, 0 roles into iCloud.example (production)"))
        #expect(imported.output.contains("record type 'Item' is added"), "\(imported.output)")

        let exported = try await run(["schema", "export", "--environment", "production"])
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.output == Self.production, "\(exported.output)")

        let unknown = try await run(["records", "create", "--environment", "production", "--type", "Other", "title=x"])
        #expect(unknown.status != 0)
        #expect(
            unknown.errorOutput.contains("Cannot create new type Other in production schema"), "\(unknown.errorOutput)")
        let saved = try await run(["records", "create", "--environment", "production", "--type", "Item", "k:int=3"])
        #expect(saved.status == 0, "\(saved.errorOutput)")

        try write(
            Self.production.replacingOccurrences(of: "        k INT64 QUERYABLE SORTABLE,\n", with: ""), "v2.ckdb")
        let refused = try await run(["schema", "import", "v2.ckdb", "--production"])
        #expect(refused.status == 65)
        #expect(refused.errorOutput.contains("error: v2.ckdb: "), "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("field 'Item.k' (INT64) is removed"), "\(refused.errorOutput)")
        let unchanged = try await run(["schema", "export", "--environment", "production"])
        #expect(unchanged.output == Self.production)

        let note = try await run(["records", "create", "--type", "Note", "--name", "n1", "title=Hi"])
        #expect(note.status == 0, "\(note.errorOutput)")
        let development = try await run(["schema", "export"])
        #expect(development.output.contains("RECORD TYPE Note"), "\(development.output)")
        let reset = try await run(["schema", "reset"])
        #expect(reset.status == 0, "\(reset.errorOutput)")
        let afterReset = try await run(["schema", "export"])
        #expect(afterReset.output == Self.production, "\(afterReset.output)")
        let fetched = try await run(["records", "fetch", "n1"])
        #expect(fetched.status != 0, "development's record survived the reset: \(fetched.output)")

        let productionReset = try await run(["schema", "reset", "--environment", "production"])
        #expect(productionReset.status == 64, "\(productionReset.errorOutput)")
    }
}
