import Crypto
import Foundation
import StratusConfiguration
import Testing

/// The file `serverCredentialsFile` names: read when the remote containers are made, and every
/// way it can be wrong reported with the key, the path, where the path came from and what the
/// file must hold — never with what it holds.
@Suite("Configuration: the server's credentials file")
struct CredentialsFileTests {
    static let secret = "SECRET-TOKEN-7e57-never-printed"

    /// The error of `remoteServer()` for a credentials file at `path`, named by the environment.
    private func failure(forFileAt path: String) async throws -> StratusSettingsError? {
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "http://127.0.0.1:9", "STRATUS_SERVER_CREDENTIALS_FILE": path,
        ])
        return #expect(throws: StratusSettingsError.self) { try settings.remoteServer() }
    }

    /// Checks that `error` names the key, the file, the origin and the accepted form, and that
    /// it says `problem` and no secret.
    private func expect(
        _ error: StratusSettingsError?, path: String, says problem: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let message = error?.message ?? ""
        #expect(error?.key == "serverCredentialsFile", sourceLocation: sourceLocation)
        #expect(
            message.hasPrefix(
                "configuration: the credentials file '\(path)' ('serverCredentialsFile', from environment variable STRATUS_SERVER_CREDENTIALS_FILE) \(problem); it must be the path of a JSON file {\"apiToken\": "
            ), "\(message)", sourceLocation: sourceLocation)
        #expect(!message.contains(Self.secret) && !message.contains("7e57"), sourceLocation: sourceLocation)
    }

    @Test func missing() async throws {
        let path = "/no/such/dir/credentials.json"
        expect(try await failure(forFileAt: path), path: path, says: "does not exist")
    }

    @Test func unreadable() async throws {
        // A directory: unreadable as a file even by root, who reads any mode.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        expect(try await failure(forFileAt: path), path: path, says: "is a directory")
    }

    @Test(arguments: [
        (#"{"apiToken": "\#(CredentialsFileTests.secret)""#, "is not a JSON object"),
        (#"["\#(CredentialsFileTests.secret)"]"#, "is not a JSON object"),
        (#""\#(CredentialsFileTests.secret)""#, "is not a JSON object"),
        (#"{"webAuthToken": "\#(CredentialsFileTests.secret)"}"#, "has no 'apiToken' string"),
        (#"{"apiToken": ""}"#, "has no 'apiToken' string"),
        (#"{"apiToken": 42}"#, "has no 'apiToken' string"),
        (
            #"{"apiToken": "\#(CredentialsFileTests.secret)", "webAuthToken": 5}"#,
            "has a 'webAuthToken' that is not a non-empty string"
        ),
        (
            #"{"apiToken": "\#(CredentialsFileTests.secret)", "environment": "staging"}"#,
            "has an 'environment' of 'staging'; accepted: development, production"
        ),
        (
            #"{"apiToken": "\#(CredentialsFileTests.secret)", "apiTokn": "x"}"#,
            "has an unknown key 'apiTokn'"
        ),
        (
            #"{"apiToken": "\#(CredentialsFileTests.secret)", "serverKeyID": "k", "serverPrivateKeyFile": "k.pem"}"#,
            "mixes a server-to-server key with tokens; give one or the other"
        ),
        (#"{"serverPrivateKeyFile": "k.pem"}"#, "has no 'serverKeyID' string beside its 'serverPrivateKeyFile'"),
        (#"{"serverKeyID": "k"}"#, "has no 'serverPrivateKeyFile' string beside its 'serverKeyID'"),
    ])
    func malformed(json: String, problem: String) async throws {
        let path = try TemporaryConfigFile.write(json)
        defer { try? FileManager.default.removeItem(atPath: path) }
        expect(try await failure(forFileAt: path), path: path, says: problem)
    }

    @Test func aNullWebAuthTokenIsAnAnonymousCaller() async throws {
        let path = try TemporaryConfigFile.write(#"{"apiToken": "\#(Self.secret)", "webAuthToken": null}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "http://127.0.0.1:9", "STRATUS_SERVER_CREDENTIALS_FILE": path,
        ])
        let server = try #require(try settings.remoteServer())
        #expect("\(server.credentials)" == "RemoteCredentials.apiToken(<redacted>)")
    }

    @Test func aServerKeyIsReadFromThePEMBesideTheFileAndNeverShown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("s2s-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = P256.Signing.PrivateKey().pemRepresentation
        try Data(pem.utf8).write(to: directory.appendingPathComponent("key.pem"))
        let file = directory.appendingPathComponent("credentials.json")
        try Data(#"{"serverKeyID": "0123abcd", "serverPrivateKeyFile": "key.pem"}"#.utf8).write(to: file)
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "http://127.0.0.1:9", "STRATUS_SERVER_CREDENTIALS_FILE": file.path,
        ])
        let server = try #require(try settings.remoteServer())
        #expect("\(server.credentials)" == "RemoteCredentials.serverToServer(keyID: 0123abcd, <redacted>)")

        try Data("not a key".utf8).write(to: directory.appendingPathComponent("key.pem"))
        let error = try #require(try await failure(forFileAt: file.path))
        #expect(error.message.contains("holds no P-256 private key in PEM form"), "\(error.message)")
        #expect(!error.message.contains("not a key"))
    }

    @Test func trustedCertificatesAreResolvedBesideTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credentials.json")
        try Data(#"{"apiToken": "\#(Self.secret)", "trustedCertificatesFile": "ca.pem"}"#.utf8).write(to: file)
        let error = try #require(try await failure(forFileAt: file.path))
        #expect(
            error.message.contains("names a 'trustedCertificatesFile' '\(directory.path)/ca.pem' that cannot be read"))

        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: directory.appendingPathComponent("ca.pem"))
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "https://127.0.0.1:9", "STRATUS_SERVER_CREDENTIALS_FILE": file.path,
        ])
        let server = try #require(try settings.remoteServer())
        #expect(server.trustedCertificatesFile == directory.appendingPathComponent("ca.pem").path)
    }
}
