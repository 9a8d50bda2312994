import ArgumentParser
import Foundation
import Stratus
import StratusServer

/// `stratusd admin key add|list|revoke`: server-to-server keys (decision 0013.5).
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key", abstract: "Server-to-server keys (P-256 public keys) of a container.",
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a P-256 public key (PEM, as `openssl ec -pubout` prints it) and print its key ID.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Option(help: "development or production.") var environment: Namespace.Environment
        @Option(help: ArgumentHelp("The public key's PEM file.", valueName: "file")) var pem: String
        @Option(help: "A note saying what the key is for.") var label = ""

        func run() async throws {
            let text: String
            do {
                text = try String(contentsOfFile: pem, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read \(pem) as text")
            }
            let entry = try await store.authStore().addServerKey(
                container: container, environment: environment, pem: text, label: label)
            print(entry.id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's server-to-server keys.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String

        func run() async throws {
            for entry in try await store.authStore().serverKeys(container: container) {
                let state = entry.revoked == nil ? "active" : "revoked"
                print("\(entry.id)\t\(entry.environment.rawValue)\t\(state)\t\(entry.label)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a server-to-server key by its ID.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Argument(help: "The key ID, as `key add` and `key list` show it.") var id: String

        func run() async throws {
            try await store.authStore().revokeServerKey(container: container, id: id)
            print("revoked \(id)")
        }
    }
}
