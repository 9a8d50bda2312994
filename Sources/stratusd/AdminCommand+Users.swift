import ArgumentParser
import Foundation
import Stratus
import StratusServer

/// `stratusd admin user create|list|disable`: the users of a container (decision 0013.4).
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Users of a container, by the external ID the app's sign-in gives them.",
        subcommands: [Create.self, List.self, Disable.self])

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a user: its sessions are refused and no new one is made.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Argument(help: "The user record name, as `user list` shows it.") var userRecordName: String

        func run() async throws {
            try await store.authStore().disableUser(container: container, userRecordName: userRecordName)
            print("disabled \(userRecordName)")
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the user an external ID names (or find it) and print its user record name.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Argument(help: "The user's ID in the app's own sign-in.") var externalID: String

        func run() async throws {
            print(try await store.authStore().createUser(container: container, externalID: externalID).userRecordName)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's users.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String

        func run() async throws {
            for user in try await store.authStore().users(container: container) {
                print("\(user.userRecordName)\t\(user.disabled == nil ? "active" : "disabled")\t\(user.externalID)")
            }
        }
    }
}

/// `stratusd admin session create|list|revoke`: sessions (`ckWebAuthToken`, decision 0013.4).
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Sessions (ckWebAuthToken) of a container's users.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a session and print it (only it, on standard output); it is shown this once.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Option(help: "development or production.") var environment: Namespace.Environment
        @Option(help: "The user's external ID; the user is made at first sight.") var user: String
        @Option(help: "Days until it expires (1 to 365; default authSessionTtlSeconds, else 30 days).")
        var ttlDays: Int?

        func run() async throws {
            let configured = try await store.settings().server.auth.sessionTTLSeconds
            let ttl = ttlDays.map { TimeInterval($0) * 86_400 } ?? TimeInterval(configured)
            let made = try await store.authStore().createSession(
                container: container, environment: environment, externalUserID: user, ttl: ttl)
            print(made.token)
            let note =
                "session \(made.entry.id) of \(made.entry.userRecordName) for \(container) (\(environment.rawValue)), "
                + "expires \(made.entry.expires.formatted(.iso8601)); keep it: it is not shown again\n"
            FileHandle.standardError.write(Data(note.utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a container's sessions (never the sessions themselves).")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String

        func run() async throws {
            let now = Date()
            for entry in try await store.authStore().sessions(container: container) {
                let state = entry.expires > now ? "active" : "expired"
                print(
                    "\(entry.id)\t\(entry.environment.rawValue)\t\(state)\t\(entry.userRecordName)\t"
                        + entry.expires.formatted(.iso8601))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a session by its ID.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The container.") var container: String
        @Argument(help: "The session's ID, as `session create` and `session list` show it.") var id: String

        func run() async throws {
            try await store.authStore().revokeSession(container: container, id: id)
            print("revoked \(id)")
        }
    }
}
