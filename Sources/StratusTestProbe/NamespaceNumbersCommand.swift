import Foundation
import Stratus

/// `namespace-numbers <store> <count> <forward|reverse>`: opens the store
/// (``Probe/openStore(_:)``) with an engine of its own and opens `count` stratusd namespaces
/// (decision 0012.10) in the given order, printing one `container/environment/owner=number`
/// line each, sorted. Two of these racing on one store must print the same lines: the loser of
/// a race to create a namespace reads the winner's number.
enum NamespaceNumbersCommand {
    static let name = "namespace-numbers"
    static let usage = "namespace-numbers <sqlite path | lmdb: URL> <count> <forward|reverse>"

    /// The `index`th namespace (all distinct for `index` < 20): five containers, both
    /// environments, public and user owners.
    static func namespace(_ index: Int) -> Namespace {
        Namespace(
            container: "iCloud.probe.\(index % 5)", environment: index % 2 == 0 ? .development : .production,
            owner: index % 4 < 2 ? "" : "_user\(index)")
    }

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 3, let count = Int(arguments[1]), count > 0,
            ["forward", "reverse"].contains(arguments[2])
        else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let backend = try Probe.openStore(arguments[0])
        let engine = try Engine(backend: backend)
        let indexes = arguments[2] == "forward" ? Array(0..<count) : (0..<count).reversed()
        var lines: [String] = []
        for index in indexes {
            let namespace = namespace(index)
            let number = try engine.database(namespace: namespace, scope: .public).containerNumber
            lines.append("\(namespace.container)/\(namespace.environment.rawValue)/\(namespace.owner)=\(number)")
        }
        try backend.close()
        print(lines.sorted().joined(separator: "\n"))
    }
}
