import Crypto
import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// Remote containers with a server-to-server key (decision 0013.5): signed requests, the public
/// database only.
@Suite("Remote containers: server-to-server keys")
struct RemoteServerKeyTests {
    let fixture: RemoteFixture
    let key = P256.Signing.PrivateKey()
    let keyID: String

    init() async throws {
        fixture = try await offPool { try RemoteFixture() }
        let pem = fixture.server.directory.appending("server-key.pem")
        try Data(key.publicKey.pemRepresentation.utf8).write(to: pem)
        let run = try runAdmin(
            ["key", "add", "--container", RemoteFixture.container, "--environment", "development", "--pem", pem.path],
            in: fixture.server.directory)
        try #require(run.status == 0, "\(run.errors)")
        keyID = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func container(_ credentials: RemoteCredentials) -> CKContainer {
        CKContainer(identifier: RemoteFixture.container, server: fixture.remoteServer(credentials))
    }

    @Test func aSignedContainerWritesAndReadsThePublicDatabase() async throws {
        let container = container(try .serverToServer(keyID: keyID, privateKeyPEM: key.pemRepresentation))
        let record = CKRecord(recordType: "Announcement", recordID: CKRecord.ID(recordName: "a1"))
        record["title"] = "signed"
        let saved = try await container.publicCloudDatabase.save(record)
        #expect(saved.recordChangeTag != nil)
        let fetched = try await fixture.alice().publicCloudDatabase.record(for: record.recordID)
        #expect(fetched["title"] as? String == "signed", "a user reads what the key wrote")
        let again = try await container.publicCloudDatabase.record(for: record.recordID)
        #expect(again.recordChangeTag == saved.recordChangeTag, "every request is signed anew")
    }

    @Test func thePrivateDatabaseRefusesAKey() async throws {
        let container = container(.serverToServer(keyID: keyID, privateKey: key))
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "p1"))
        let error = try #require(
            await #expect(throws: CKError.self) { try await container.privateCloudDatabase.save(record) })
        #expect([.permissionFailure, .notAuthenticated].contains(error.code), "\(error)")
    }

    @Test func aKeyThatDoesNotMatchItsIDIsNotAuthenticated() async throws {
        let container = container(.serverToServer(keyID: keyID, privateKey: P256.Signing.PrivateKey()))
        let error = try #require(
            await #expect(throws: CKError.self) {
                try await container.publicCloudDatabase.record(for: CKRecord.ID(recordName: "a1"))
            })
        #expect(error.code == .notAuthenticated, "\(error)")
    }

    @Test func credentialsNeverShowTheKey() throws {
        let credentials = RemoteCredentials.serverToServer(keyID: keyID, privateKey: key)
        let pemBody = key.pemRepresentation.split(separator: "\n")[1]
        #expect("\(credentials)" == "RemoteCredentials.serverToServer(keyID: \(keyID), <redacted>)")
        var dumped = ""
        dump(credentials, to: &dumped)
        #expect(!dumped.contains(pemBody))
        #expect(throws: RemoteCredentialsError.self) {
            try RemoteCredentials.serverToServer(keyID: keyID, privateKeyPEM: "not a key")
        }
    }
}
