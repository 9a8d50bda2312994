import Foundation
import Logging
import Stratus
import StratusBackend
import StratusConformance
import StratusRemote
import StratusServer

/// A conformance fixture that gives every case a `stratusd` of its own — a `StratusServer` in
/// this process, on a loopback port — serving fresh storage made by `base`. The cases'
/// containers are remote containers of one user of that server, so every engine-level case
/// runs through HTTP, the Web Services translation and the engine behind it.
///
/// The server runs in the test process so that every backend can be served, the in-memory one
/// included, and so that each case's containers, API token and session are made on the
/// server's own store as the case asks for them.
struct RemoteConformanceFixture: BackendFixture {
    /// The fixture of the storage the servers serve.
    let base: any BackendFixture

    var name: String { "remote over \(base.name)" }

    func makeStorage() async throws -> any FixtureStorage {
        let storage = try await base.makeStorage()
        do {
            return try await RemoteConformanceStorage.start(serving: storage)
        } catch {
            try? storage.destroy()
            throw error
        }
    }
}
