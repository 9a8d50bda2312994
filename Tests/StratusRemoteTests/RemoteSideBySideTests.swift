import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Testing

/// The same session of CloudKit calls on an embedded SQLite container and on a remote one: the
/// transcripts must match line for line.
@Suite("Remote containers: side by side with embedded")
struct RemoteSideBySideTests {
    @Test func aSessionSeesTheSameOnBoth() async throws {
        let directory = try TemporaryDirectory(prefix: "side-by-side")
        defer { try? directory.remove() }
        let backend = try SQLiteBackend(
            configuration: .init(location: .file(path: directory.appending("s.sqlite").path)))
        let embedded = CKContainer(identifier: RemoteFixture.container, backend: backend)
        var local = SideBySideScenario(embedded.privateCloudDatabase)
        try await local.run()

        let fixture = try await offPool { try RemoteFixture() }
        var remote = SideBySideScenario(fixture.alice().privateCloudDatabase)
        try await remote.run()

        if ProcessInfo.processInfo.environment["SHOW_TRANSCRIPT"] != nil { print(remote.lines.joined(separator: "\n")) }
        #expect(local.lines.count == remote.lines.count)
        for (index, (expected, actual)) in zip(local.lines, remote.lines).enumerated() {
            #expect(actual == expected, "line \(index)")
        }
    }
}
