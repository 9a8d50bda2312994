import Foundation
import Testing

@Suite("stratus: directories of file-based backends")
struct CLIBackendDirectoryTests {
    @Test func relativeLMDBInTheConfigurationFileCreatesItsParents() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        try #"{"backend": "lmdb:data/env"}"#.write(
            to: workspace.directory.appendingPathComponent("stratus.json"), atomically: true, encoding: .utf8)
        let created = try await workspace.stratus(environment: [:], ["zones", "create", "Notes"])
        #expect(created.status == 0, "\(created.errorOutput)")
        let environment = workspace.directory.appendingPathComponent("data/env/data.mdb").path
        #expect(FileManager.default.fileExists(atPath: environment))
        let listed = try await workspace.stratus(environment: [:], ["zones", "list"])
        #expect(listed.lines.contains("Notes"))
    }

    @Test func relativeSQLiteCreatesItsDirectories() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let created = try await workspace.stratus(
            environment: [:], ["zones", "create", "Notes", "--backend", "sqlite:a/b/store.sqlite"])
        #expect(created.status == 0, "\(created.errorOutput)")
        let store = workspace.directory.appendingPathComponent("a/b/store.sqlite").path
        #expect(FileManager.default.fileExists(atPath: store))
    }

    @Test func aParentThatIsAFileIsAConfigurationError() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let blocker = workspace.directory.appendingPathComponent("data")
        try "not a directory".write(to: blocker, atomically: true, encoding: .utf8)
        let outcome = try await workspace.stratus(
            environment: [:], ["zones", "list", "--backend", "lmdb:data/env"])
        #expect(outcome.status == 78)
        #expect(
            outcome.errorOutput
                == "error: invalid location in 'lmdb:data/env': cannot create the directory 'data/env': 'data' exists and is not a directory\n"
        )
    }
}
