import Foundation
import Testing

@Suite("stratus schema validate")
struct CLISchemaTests {
    static let valid = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SEARCHABLE,
                tags LIST<STRING>,
                GRANT WRITE TO Editor
            );
        """

    @Test func aValidFileIsSummarized() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        try Self.valid.write(
            to: workspace.directory.appendingPathComponent("app.ckdb"), atomically: true, encoding: .utf8)
        let outcome = try await StratusExecutable.run(["schema", "validate", "app.ckdb"], in: workspace.directory)
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(outcome.output == "app.ckdb: valid, 1 record type, 3 fields, 1 role\n")
        #expect(outcome.errorOutput.isEmpty)
    }

    @Test func canonicalTextFromStandardInput() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(
            ["schema", "validate", "--canonical", "-"], in: workspace.directory, input: Self.valid)
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(
            outcome.output == """
                DEFINE SCHEMA

                    CREATE ROLE Editor;

                    RECORD TYPE Note (
                        "___recordID" REFERENCE QUERYABLE,
                        tags LIST<STRING>,
                        title STRING QUERYABLE SEARCHABLE,
                        GRANT WRITE TO Editor
                    );

                """)
    }

    @Test func everyProblemIsOneLineWithItsPosition() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let text = """
            DEFINE SCHEMA
                RECORD TYPE Note (
                    body BYTES QUERYABLE,
                    title STRING
                    GRANT READ TO "_world"
                );
            """
        try text.write(to: workspace.directory.appendingPathComponent("bad.ckdb"), atomically: true, encoding: .utf8)
        let outcome = try await StratusExecutable.run(["schema", "validate", "bad.ckdb"], in: workspace.directory)
        #expect(outcome.status == 65)
        #expect(outcome.output.isEmpty)
        #expect(
            outcome.errorOutput == """
                error: bad.ckdb:3:20: field 'Note.body' of type BYTES cannot be QUERYABLE: BYTES values cannot be queried (it takes no index)
                error: bad.ckdb:5:9: expected ',' or ')' after an item of record type 'Note', found 'GRANT'

                """)
    }

    @Test func onlyAdditiveChangesToAProductionSchema() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        try Self.valid.write(
            to: workspace.directory.appendingPathComponent("prod.ckdb"), atomically: true, encoding: .utf8)
        let added = """
            DEFINE SCHEMA
                CREATE ROLE Editor;
                RECORD TYPE Note (
                    title STRING QUERYABLE SEARCHABLE, tags LIST<STRING>, body STRING, GRANT WRITE TO Editor
                );
                RECORD TYPE Tag ( label STRING );
            """
        let ok = try await StratusExecutable.run(
            ["schema", "validate", "-", "--production", "prod.ckdb"], in: workspace.directory, input: added)
        #expect(ok.status == 0, "\(ok.errorOutput)")
        #expect(
            ok.output == """
                <stdin>: valid, 2 record types, 4 fields, 1 role
                changes from prod.ckdb:
                  field 'Note.body' is added as STRING
                  record type 'Tag' is added

                """)
        #expect(
            ok.errorOutput
                == "warning: <stdin>: field 'Note.___recordID' is no longer QUERYABLE: queries that need it fail\n")

        let same = try await StratusExecutable.run(
            ["schema", "validate", "prod.ckdb", "--production", "prod.ckdb"], in: workspace.directory)
        #expect(same.output == "prod.ckdb: valid, 1 record type, 3 fields, 1 role\nchanges from prod.ckdb: none\n")

        let removed = "DEFINE SCHEMA CREATE ROLE Editor; RECORD TYPE Note ( title INT64, GRANT WRITE TO Editor );"
        let refused = try await StratusExecutable.run(
            ["schema", "validate", "-", "--production", "prod.ckdb"], in: workspace.directory, input: removed)
        #expect(refused.status == 65)
        #expect(refused.output.isEmpty)
        #expect(
            refused.errorOutput == """
                error: <stdin>: field 'Note.tags' (LIST<STRING>) is removed, with its data
                error: <stdin>: field 'Note.title' changes type from STRING to INT64

                """)

        let broken = try await StratusExecutable.run(
            ["schema", "validate", "prod.ckdb", "--production", "-"], in: workspace.directory, input: "DEFINE")
        #expect(broken.status == 65)
        #expect(broken.errorOutput == "error: <stdin>:1:7: expected SCHEMA after DEFINE, found the end of the text\n")
    }

    @Test func aMissingFileIsNoInput() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(["schema", "validate", "none.ckdb"], in: workspace.directory)
        #expect(outcome.status == 66)
        #expect(outcome.errorOutput == "error: cannot read 'none.ckdb'\n")
    }
}
