import Foundation
import Stratus
import StratusRemote

/// A `stratusd` child process on loopback over a new store of a benchmark target, and the
/// remote container of its user: what `stratus-bench remote` measures through.
///
/// The server is the built `stratusd` binary (``StratusdServer``, provisioned with
/// `stratusd admin`), not an in-process `StratusServer`: the credential store is internal to
/// Stratus, so only `stratusd admin` can make a container, an API token and a session, and a
/// process of its own reports its CPU time apart from the harness's (the client's).
final class RemoteStratusd {
    /// The server process.
    private let server: StratusdServer
    /// The container of the server's user, through `StratusRemote`.
    let container: CKContainer
    /// How the server runs, for the report.
    let description: String

    /// Makes a new store of `target` in `directory` (closed again at once: the server opens it
    /// by its location), then starts `executable` on it.
    init(executable: String, target: any BenchmarkTarget, in directory: String) throws {
        let backend = try Self.backendURL(target: target, in: directory)
        server = try StratusdServer(executable: executable, backend: backend)
        let credentials = try Self.credentials(in: server.query)
        let url = URL(string: "http://127.0.0.1:\(server.port)")!
        container = CKContainer(
            identifier: StratusdServer.container,
            server: RemoteServer(url: url, credentials: credentials, requestTimeout: .seconds(600)))
        description = "stratusd child process (pid \(server.processIdentifier)) on 127.0.0.1, HTTP/1.1"
    }

    /// The server's CPU seconds so far (user and system, from `/proc/<pid>/stat`).
    var cpuSeconds: Double {
        let path = "/proc/\(server.processIdentifier)/stat"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return 0 }
        // After the command's closing parenthesis: field 3 (state) first; utime and stime
        // are fields 14 and 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The server's resident size now, in MiB.
    var residentMiB: Double { Double(server.residentKiB ?? 0) / 1024 }

    /// Stops the server (SIGTERM) and removes its directory.
    func stop() { server.stop() }

    /// The `--backend` URL of a new store of `target` in `directory`.
    private static func backendURL(target: any BenchmarkTarget, in directory: String) throws -> String {
        let store = try target.makeStore(in: directory)
        try store.backend.close()
        guard let location = store.location else {
            throw BenchmarkFailure(
                "\(target.name): the store lives in one process's memory; stratusd and `stratusd admin` cannot share it"
            )
        }
        switch target.name {
        case "sqlite": return "sqlite://" + location
        case "lmdb": return "lmdb://" + location
        default: return location
        }
    }

    /// The API token and session in the `?ckAPIToken=…&ckWebAuthToken=…` query of `server`.
    private static func credentials(in query: String) throws -> RemoteCredentials {
        let items = URLComponents(string: "http://localhost/" + query)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let token = value("ckAPIToken"), let session = value("ckWebAuthToken") else {
            throw BenchmarkFailure("stratusd admin did not give an API token and a session")
        }
        return .session(apiToken: token, webAuthToken: session)
    }
}

extension Workload {
    /// A workload on `container` (a remote container, whose store is the server's).
    init(container: CKContainer) {
        self.container = container
    }
}
