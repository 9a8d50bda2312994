import Foundation
import StratusTestSupport
import Testing

/// `stratusd admin`: containers and API tokens, written into the store by the built executable.
@Suite("stratusd admin: containers and API tokens")
struct AdminCommandTests {
    private func admin(_ arguments: [String], in directory: TemporaryDirectory) throws -> AdminRun {
        try runAdmin(arguments, in: directory)
    }

    @Test func aTokenIsShownOnceStoredOnlyAsItsHashAndCanBeRevoked() throws {
        let directory = try TemporaryDirectory(prefix: "stratusd-admin")
        defer { try? directory.remove() }
        let created = try admin(["container", "create", "iCloud.com.example.app"], in: directory)
        #expect(created.status == 0, "\(created.errors)")
        #expect(created.output == "container iCloud.com.example.app: development, production\n")

        let made = try admin(
            [
                "token", "create", "--container", "iCloud.com.example.app", "--environment", "development", "--label",
                "web",
            ],
            in: directory)
        #expect(made.status == 0, "\(made.errors)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit), "an API token is 64 hex digits: \(token)")
        #expect(made.errors.contains("it is not shown again"))

        // Nowhere in the store's files, in clear.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appending(".stratus").path)
        for file in files {
            let bytes = try Data(contentsOf: directory.appending(".stratus/\(file)"))
            #expect(bytes.range(of: Data(token.utf8)) == nil, "the token is stored in clear in \(file)")
        }

        let listed = try admin(["token", "list", "--container", "iCloud.com.example.app"], in: directory)
        let fields = listed.output.split(separator: "\t").map(String.init)
        #expect(fields.count == 4 && fields[1] == "development" && fields[2] == "active", "\(listed.output)")
        #expect(!listed.output.contains(token))

        let revoked = try admin(["token", "revoke", "--container", "iCloud.com.example.app", fields[0]], in: directory)
        #expect(revoked.status == 0, "\(revoked.errors)")
        let after = try admin(["token", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(after.output.contains("\trevoked\t"))
    }

    @Test func refusalsSayWhatWasWrongAndWriteNothing() throws {
        let directory = try TemporaryDirectory(prefix: "stratusd-admin")
        defer { try? directory.remove() }
        let badName = try admin(["container", "create", "not a name"], in: directory)
        #expect(badName.status != 0)
        #expect(badName.errors.contains("'not a name' is not a container identifier"))

        let noContainer = try admin(
            ["token", "create", "--container", "iCloud.nope", "--environment", "development"], in: directory)
        #expect(noContainer.status != 0)
        #expect(noContainer.errors.contains("no container named 'iCloud.nope'"))
        #expect(noContainer.output.isEmpty, "no token is printed when none was made")

        _ = try admin(["container", "create", "iCloud.prod", "--environment", "production"], in: directory)
        let wrongEnvironment = try admin(
            ["token", "create", "--container", "iCloud.prod", "--environment", "development"], in: directory)
        #expect(wrongEnvironment.errors.contains("container 'iCloud.prod' has no development environment"))
        #expect(try admin(["token", "list", "--container", "iCloud.prod"], in: directory).output.isEmpty)

        let unknownID = try admin(["token", "revoke", "--container", "iCloud.prod", "0123"], in: directory)
        #expect(unknownID.errors.contains("has no API token with ID 0123"))
    }
}
