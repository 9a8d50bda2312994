import Crypto
import Foundation
import Stratus
import StratusSQLite
import StratusServer
import StratusTestSupport
import Testing

/// `stratusd admin user|session|key`, run through the built executable.
@Suite("stratusd admin: users, sessions and server-to-server keys")
struct AdminCredentialCommandTests {
    /// A directory whose store has the container `iCloud.com.example.app`.
    func storeWithContainer() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "stratusd-admin")
        let created = try runAdmin(["container", "create", "iCloud.com.example.app"], in: directory)
        #expect(created.status == 0, "\(created.errors)")
        return directory
    }

    /// Whether `secret` appears in clear in any file of the store.
    func storeHolds(_ secret: String, in directory: TemporaryDirectory) throws -> Bool {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appending(".stratus").path)
        return try files.contains { file in
            try Data(contentsOf: directory.appending(".stratus/\(file)")).range(of: Data(secret.utf8)) != nil
        }
    }

    @Test func aUserKeepsItsRecordName() throws {
        let directory = try storeWithContainer()
        defer { try? directory.remove() }
        let first = try runAdmin(["user", "create", "--container", "iCloud.com.example.app", "alice"], in: directory)
        #expect(first.status == 0, "\(first.errors)")
        let name = first.output.trimmingCharacters(in: .newlines)
        #expect(name.count == 33 && name.hasPrefix("_"), "\(name)")
        let again = try runAdmin(["user", "create", "--container", "iCloud.com.example.app", "alice"], in: directory)
        #expect(again.output == first.output)
        let listed = try runAdmin(["user", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(listed.output == "\(name)\tactive\talice\n")
        let disabled = try runAdmin(
            ["user", "disable", "--container", "iCloud.com.example.app", name], in: directory)
        #expect(disabled.status == 0, "\(disabled.errors)")
        let after = try runAdmin(["user", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(after.output == "\(name)\tdisabled\talice\n")
        let nowhere = try runAdmin(["user", "create", "--container", "iCloud.nope", "alice"], in: directory)
        #expect(nowhere.status != 0 && nowhere.errors.contains("no container named 'iCloud.nope'"))
    }

    @Test func aSessionIsPrintedAloneOnceAndCanBeRevoked() throws {
        let directory = try storeWithContainer()
        defer { try? directory.remove() }
        let base = ["--container", "iCloud.com.example.app", "--environment", "development", "--user", "alice"]
        let made = try runAdmin(["session", "create"] + base + ["--ttl-days", "2"], in: directory)
        #expect(made.status == 0, "\(made.errors)")
        let lines = made.output.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].count == 43, "only the token on standard output: \(made.output)")
        let token = String(lines.first ?? "")
        #expect(made.errors.contains("it is not shown again") && !made.errors.contains(token))
        #expect(try !storeHolds(token, in: directory), "the session is stored in clear")

        let listed = try runAdmin(["session", "list", "--container", "iCloud.com.example.app"], in: directory)
        let fields = listed.output.split(separator: "\t").map(String.init)
        #expect(fields.count == 5 && fields[1] == "development" && fields[2] == "active", "\(listed.output)")
        #expect(made.errors.contains("session \(fields.first ?? "?") of _"), "the ID is printed with the token")
        let users = try runAdmin(["user", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(users.output.hasPrefix(fields.count > 3 ? fields[3] : "?"), "made at first sight: \(users.output)")

        let revoked = try runAdmin(
            ["session", "revoke", "--container", "iCloud.com.example.app", fields.first ?? ""], in: directory)
        #expect(revoked.status == 0, "\(revoked.errors)")
        let after = try runAdmin(["session", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(after.output.isEmpty)

        let tooLong = try runAdmin(["session", "create"] + base + ["--ttl-days", "366"], in: directory)
        #expect(tooLong.status != 0 && tooLong.output.isEmpty)
        #expect(tooLong.errors.contains("at most 365 days"))
    }

    @Test func aPublicKeyIsAddedListedAndRevoked() throws {
        let directory = try storeWithContainer()
        defer { try? directory.remove() }
        let pem = directory.appending("public.pem")
        try P256.Signing.PrivateKey().publicKey.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let added = try runAdmin(
            [
                "key", "add", "--container", "iCloud.com.example.app", "--environment", "production", "--pem",
                pem.path, "--label", "backend",
            ], in: directory)
        #expect(added.status == 0, "\(added.errors)")
        let id = added.output.trimmingCharacters(in: .newlines)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
        let listed = try runAdmin(["key", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(listed.output == "\(id)\tproduction\tactive\tbackend\n")
        let revoked = try runAdmin(["key", "revoke", "--container", "iCloud.com.example.app", id], in: directory)
        #expect(revoked.status == 0, "\(revoked.errors)")
        let after = try runAdmin(["key", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(after.output == "\(id)\tproduction\trevoked\tbackend\n")
    }

    @Test func whatAdminMakesTheAuthenticatorAccepts() throws {
        let directory = try storeWithContainer()
        defer { try? directory.remove() }
        let container = ["--container", "iCloud.com.example.app", "--environment", "development"]
        let token = try runAdmin(["token", "create"] + container, in: directory).output
        let session = try runAdmin(["session", "create"] + container + ["--user", "alice"], in: directory).output
        let privateKey = P256.Signing.PrivateKey()
        let pem = directory.appending("public.pem")
        try privateKey.publicKey.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let keyID = try runAdmin(["key", "add"] + container + ["--pem", pem.path], in: directory).output

        let backend = try SQLiteBackend(
            configuration: .init(location: .file(path: directory.appending(".stratus/stratus.sqlite").path)))
        let authenticator = Authenticator(store: AuthStore(engine: try Engine(backend: backend)))
        let user = try authenticator.authenticate(
            container: "iCloud.com.example.app", environment: .development,
            credentials: PresentedCredentials(
                apiToken: token.trimmingCharacters(in: .newlines),
                webAuthToken: session.trimmingCharacters(in: .newlines)))
        let alice = try runAdmin(["user", "create", "--container", "iCloud.com.example.app", "alice"], in: directory)
        #expect(
            user.authenticationWithoutBody?.identity
                == .user(userRecordName: alice.output.trimmingCharacters(in: .newlines)))

        let date = Date().formatted(.iso8601)
        let path = "/database/1/iCloud.com.example.app/development/public/records/query"
        let message = "\(date):\(Data(SHA256.hash(data: [UInt8]())).base64EncodedString()):\(path)"
        let signed = PresentedCredentials(
            keyID: keyID.trimmingCharacters(in: .newlines), date: date,
            signature: try privateKey.signature(for: Data(message.utf8)).derRepresentation.base64EncodedString())
        let pending = try authenticator.authenticate(
            container: "iCloud.com.example.app", environment: .development, credentials: signed)
        let server = try authenticator.complete(pending, body: [], rawPath: path)
        #expect(server.identity == .server(keyID: keyID.trimmingCharacters(in: .newlines)))
    }

    @Test func theHMACKeyIsRotated() throws {
        let directory = try storeWithContainer()
        defer { try? directory.remove() }
        let store = directory.appending(".stratus/stratus.sqlite").path
        func key() throws -> SymmetricKey {
            let backend = try SQLiteBackend(configuration: .init(location: .file(path: store)))
            return try AuthStore(engine: try Engine(backend: backend)).hmacKey()
        }
        let before = try key()
        let rotated = try runAdmin(["secret", "rotate"], in: directory)
        #expect(rotated.status == 0, "\(rotated.errors)")
        #expect(rotated.output == "rotated the server's HMAC key\n")
        #expect(try key() != before)
    }

    @Test(arguments: ["private", "P-384"])
    func anythingButAP256PublicKeyIsRefused(kind: String) throws {
        let directory = try storeWithContainer()
        defer { try? directory.remove() }
        let text =
            kind == "private"
            ? P256.Signing.PrivateKey().pemRepresentation : P384.Signing.PrivateKey().publicKey.pemRepresentation
        let pem = directory.appending("key.pem")
        try text.write(to: pem, atomically: true, encoding: .utf8)
        let refused = try runAdmin(
            ["key", "add", "--container", "iCloud.com.example.app", "--environment", "development", "--pem", pem.path],
            in: directory)
        #expect(refused.status != 0)
        #expect(refused.output.isEmpty, "no key ID")
        let expected = kind == "private" ? "this PEM holds a private key" : "this is a P-384 public key"
        #expect(refused.errors.contains(expected), "\(refused.errors)")
        let body = text.split(separator: "\n")[1]
        #expect(!refused.errors.contains(body), "the PEM is not repeated")
        let listed = try runAdmin(["key", "list", "--container", "iCloud.com.example.app"], in: directory)
        #expect(listed.output.isEmpty)
    }
}
