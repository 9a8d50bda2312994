import Foundation
import Stratus
import StratusWebServices

/// stratusd's schema endpoints (decision 0020.9) for the `stratus` tool: the container
/// environment's schema, importing one, resetting development. The server answers a
/// server-to-server key only; other credentials get `permissionFailure`.
package struct RemoteSchemaClient: Sendable {
    private let transport: RemoteTransport

    /// A client of `server`'s endpoints for `containerIdentifier` in the server's environment.
    package init(server: RemoteServer, containerIdentifier: String) {
        transport = RemoteTransport(server: server, containerIdentifier: containerIdentifier)
    }

    /// The schema's canonical text.
    package func export() throws(CKError) -> String {
        let answer = try transport.post(.public, "schema", .object([:]))
        guard case .string(let text)? = answer["schema"] else {
            throw RemoteFailure.error(.serverResponseLost, "the server's schema answer has no 'schema' string")
        }
        return text
    }

    /// Imports `text`; what changed, how many indexes the server built before answering (0
    /// since it builds them in the background) and how many declared indexes it has still to
    /// build (decision 0020.8). A refused import is `invalidArguments` whose message lists
    /// every problem, one per line.
    package func importSchema(_ text: String) throws(CKError) -> (
        changes: [String], indexesBuilt: Int, indexesPending: Int
    ) {
        let answer = try transport.post(.public, "schema/import", .object(["schema": .string(text)]), retry: .once)
        var changes: [String] = []
        if case .array(let items)? = answer["changes"] {
            for case .string(let change) in items { changes.append(change) }
        }
        var built = 0
        if case .integer(let count)? = answer["indexesBuilt"] { built = Int(count) }
        var pending = 0
        if case .integer(let count)? = answer["indexesPending"] { pending = Int(count) }
        return (changes, built, pending)
    }

    /// Resets the container's development environment.
    package func reset() throws(CKError) {
        _ = try transport.post(.public, "schema/reset", .object([:]), retry: .once)
    }
}
