import Crypto
import Foundation
import StratusTestSupport
import Testing

/// `stratus schema … --server`: through stratusd's schema endpoints (decision 0020.9), which a
/// server-to-server key may use and a user's session may not.
@Suite("stratus schema through stratusd")
struct CLISchemaServerTests {
    @Test func aServerKeyImportsAndExportsAUserSessionIsRefused() async throws {
        let server = try CLIServer()
        let key = P256.Signing.PrivateKey()
        let directory = server.daemon.directory
        let publicPEM = directory.appending("schema-key.pub.pem")
        try key.publicKey.pemRepresentation.write(to: publicPEM, atomically: true, encoding: .utf8)
        let added = try runAdmin(
            [
                "key", "add", "--container", CLIServer.container, "--environment", "development", "--pem",
                publicPEM.path,
            ],
            in: directory)
        #expect(added.status == 0, "\(added.errors)")
        let keyID = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let privatePEM = server.workspace.appendingPathComponent("schema-key.pem")
        try key.pemRepresentation.write(to: privatePEM, atomically: true, encoding: .utf8)
        let keyFile = server.workspace.appendingPathComponent("key-credentials.json").path
        try #"{"serverKeyID": "\#(keyID)", "serverPrivateKeyFile": "schema-key.pem"}"#.write(
            toFile: keyFile, atomically: true, encoding: .utf8)
        let schema = "DEFINE SCHEMA\n\n    RECORD TYPE Note (\n        title STRING QUERYABLE\n    );\n"
        try schema.write(to: server.workspace.appendingPathComponent("app.ckdb"), atomically: true, encoding: .utf8)
        let asKey = ["--server", server.url, "--credentials-file", keyFile, "--container", CLIServer.container]

        let imported = try await StratusExecutable.run(["schema", "import", "app.ckdb"] + asKey, in: server.workspace)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.contains("record type 'Note' is added"), "\(imported.output)")
        #expect(
            imported.output.contains("indexes the server builds in the background for existing records: 0"),
            "\(imported.output)")
        let exported = try await StratusExecutable.run(["schema", "export"] + asKey, in: server.workspace)
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.output == schema, "\(exported.output)")

        let asAlice = try await server.stratus("schema", "import", "app.ckdb")
        #expect(asAlice.status != 0)
        #expect(asAlice.errorOutput.contains("server-to-server key"), "\(asAlice.errorOutput)")
        #expect(!server.leaksASecret(asAlice.errorOutput))

        let reset = try await StratusExecutable.run(["schema", "reset"] + asKey, in: server.workspace)
        #expect(reset.status == 0, "\(reset.errorOutput)")
        let empty = try await StratusExecutable.run(["schema", "export"] + asKey, in: server.workspace)
        #expect(empty.output == "DEFINE SCHEMA\n", "\(empty.output)")
    }
}
