import ArgumentParser
import Foundation
import Logging
import Stratus
import StratusServer

/// `stratusd admin`: containers and credentials, written straight into the store (decision
/// 0013.1). Whoever can run it can already read the store; there is no HTTP admin API.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Create and list containers and credentials in the store.",
        subcommands: [
            ContainerCommand.self, TokenCommand.self, UserCommand.self, SessionCommand.self, KeyCommand.self,
            SecretCommand.self,
        ])
}

extension StoreOptions {
    /// The auth data of the selected store. Administration logs warnings and worse only, on
    /// standard error: standard output carries what the command prints (a token, a list).
    func authStore() async throws -> AuthStore {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let backend = try open(try await settings())
        return AuthStore(engine: try Engine(backend: backend))
    }
}

/// An environment as an argument.
extension Namespace.Environment: ExpressibleByArgument {}

/// `stratusd admin container create|list|disable`.
struct ContainerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "container", abstract: "Containers served by this store.",
        subcommands: [Create.self, List.self, Disable.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a container (both environments unless --environment narrows it).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The container identifier, such as iCloud.com.example.app.") var name: String
        @Option(help: "development or production (default: both).") var environment: Namespace.Environment?

        func run() async throws {
            let environments = environment.map { Set([$0]) } ?? Set(Namespace.Environment.allCases)
            let entry = try await store.authStore().createContainer(name, environments: environments)
            print("container \(entry.name): \(entry.environments.map(\.rawValue).sorted().joined(separator: ", "))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the containers.")
        @OptionGroup var store: StoreOptions

        func run() async throws {
            for entry in try await store.authStore().containers() {
                let environments = entry.environments.map(\.rawValue).sorted().joined(separator: ",")
                print("\(entry.name)\t\(environments)\t\(entry.disabled == nil ? "enabled" : "disabled")")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a container: all its credentials are refused; `container create` enables it again.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The container identifier.") var name: String

        func run() async throws {
            try await store.authStore().disableContainer(name)
            print("disabled \(name)")
        }
    }
}

/// `stratusd admin token create|list|revoke`: API tokens (`ckAPIToken`).
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "API tokens (ckAPIToken) of a container.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an API token and print it; it is shown this once and stored only as its SHA-256.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Option(help: "development or production.") var environment: Namespace.Environment
        @Option(help: "A note saying what the token is for.") var label = ""

        func run() async throws {
            let made = try await store.authStore().createAPIToken(
                container: container, environment: environment, label: label)
            print(made.token)
            FileHandle.standardError.write(
                Data(
                    "API token \(made.entry.id) for \(container) (\(environment.rawValue)); keep it: it is not shown again\n"
                        .utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a container's API tokens (never the tokens themselves).")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String

        func run() async throws {
            for entry in try await store.authStore().apiTokens(container: container) {
                let state = entry.revoked == nil ? "active" : "revoked"
                print("\(entry.id)\t\(entry.environment.rawValue)\t\(state)\t\(entry.label)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API token by its ID.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Argument(help: "The token's ID, as `token list` shows it.") var id: String

        func run() async throws {
            try await store.authStore().revokeAPIToken(container: container, id: id)
            print("revoked \(id)")
        }
    }
}

/// `stratusd admin secret rotate`: the server's HMAC key (decision 0013.2, `06 08`).
struct SecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret", abstract: "The server's HMAC key (asset URLs, receipts).", subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the HMAC key with a new random one; URLs signed with the old one stop working.")
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.authStore().rotateHMACKey()
            print("rotated the server's HMAC key")
        }
    }
}
