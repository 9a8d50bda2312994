import Foundation
import StratusRemote

/// The JSON file `serverCredentialsFile` names (decision 0016.4):
/// `{"apiToken": "…", "webAuthToken": "…", "environment": "development"}`, or for a
/// server-to-server key `{"serverKeyID": "…", "serverPrivateKeyFile": "key.pem"}` (the PEM's path,
/// relative to the credentials file's directory). Either may add `"trustedCertificatesFile":
/// "ca.pem"`, the PEM certificates an `https` server is verified with instead of the system's
/// (a self-signed `stratusd`, a private CA; relative paths as for the key).
///
/// Its errors say what is wrong with the file and what it must hold, never what it holds: no
/// token, and no parser message (which may quote the text).
struct RemoteCredentialsFile {
    /// The file's path.
    var path: String
    /// Where the path came from (`environment variable …`, a configuration file, …).
    var origin: String?

    /// The keys the file may have.
    static let keys = [
        "apiToken", "webAuthToken", "environment", "serverKeyID", "serverPrivateKeyFile", "trustedCertificatesFile",
    ]

    /// The credentials and the container environment the file holds.
    ///
    /// - Throws: ``StratusSettingsError`` about `serverCredentialsFile`.
    func read() throws -> (
        credentials: RemoteCredentials, environment: RemoteServer.Environment, trustedCertificatesFile: String?
    ) {
        let object = try jsonObject()
        for name in object.keys.sorted() where !Self.keys.contains(name) {
            throw failure("has an unknown key '\(name)'")
        }
        let trusted = try trustedCertificatesFile(object["trustedCertificatesFile"])
        if object["serverKeyID"] != nil || object["serverPrivateKeyFile"] != nil {
            return (try serverKey(object), try environment(object["environment"]), trusted)
        }
        guard let apiToken = object["apiToken"] as? String, !apiToken.isEmpty else {
            throw failure("has no 'apiToken' string")
        }
        let credentials: RemoteCredentials
        switch object["webAuthToken"] {
        case nil, is NSNull:
            credentials = .apiToken(apiToken)
        case let webAuthToken as String where !webAuthToken.isEmpty:
            credentials = .session(apiToken: apiToken, webAuthToken: webAuthToken)
        default:
            throw failure("has a 'webAuthToken' that is not a non-empty string")
        }
        return (credentials, try environment(object["environment"]), trusted)
    }

    /// The path of `trustedCertificatesFile`, relative to the file's directory; `nil` when absent.
    private func trustedCertificatesFile(_ value: Any?) throws -> String? {
        switch value {
        case nil, is NSNull: return nil
        case let text as String where !text.isEmpty:
            let resolved = resolve(text)
            guard FileManager.default.isReadableFile(atPath: resolved.path) else {
                throw failure("names a 'trustedCertificatesFile' '\(resolved.path)' that cannot be read")
            }
            return resolved.path
        default:
            throw failure("has a 'trustedCertificatesFile' that is not a non-empty string")
        }
    }

    /// `path` relative to the credentials file's directory, unless absolute.
    private func resolve(_ path: String) -> URL {
        path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: self.path).deletingLastPathComponent().appendingPathComponent(path)
    }

    /// Server-to-server credentials: the key ID and the private key the PEM file holds.
    private func serverKey(_ object: [String: Any]) throws -> RemoteCredentials {
        guard object["apiToken"] == nil, object["webAuthToken"] == nil else {
            throw failure("mixes a server-to-server key with tokens; give one or the other")
        }
        guard let keyID = object["serverKeyID"] as? String, !keyID.isEmpty else {
            throw failure("has no 'serverKeyID' string beside its 'serverPrivateKeyFile'")
        }
        guard let pemPath = object["serverPrivateKeyFile"] as? String, !pemPath.isEmpty else {
            throw failure("has no 'serverPrivateKeyFile' string beside its 'serverKeyID'")
        }
        let pemURL = resolve(pemPath)
        guard let data = FileManager.default.contents(atPath: pemURL.path),
            let pem = String(data: data, encoding: .utf8)
        else {
            throw failure("names a 'serverPrivateKeyFile' '\(pemURL.path)' that cannot be read")
        }
        do {
            return try .serverToServer(keyID: keyID, privateKeyPEM: pem)
        } catch {
            throw failure("names a 'serverPrivateKeyFile' '\(pemURL.path)' that holds no P-256 private key in PEM form")
        }
    }

    /// The file's top-level JSON object.
    private func jsonObject() throws -> [String: Any] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure("does not exist")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw failure(isDirectory.boolValue ? "is a directory" : "cannot be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw failure("is not a JSON object")
        }
        return object
    }

    /// The `environment` value: `development` when absent.
    private func environment(_ value: Any?) throws -> RemoteServer.Environment {
        switch value {
        case nil, is NSNull:
            return .development
        case let text as String:
            guard let environment = RemoteServer.Environment(rawValue: text) else {
                throw failure("has an 'environment' of '\(text)'; accepted: development, production")
            }
            return environment
        default:
            throw failure("has an 'environment' that is not a string; accepted: development, production")
        }
    }

    /// The error saying the file `problem`, what it must be, and where its path came from.
    private func failure(_ problem: String) -> StratusSettingsError {
        let key = SettingsKey.serverCredentialsFile
        let from = origin.map { ", from \($0)" } ?? ""
        return StratusSettingsError(
            "configuration: the credentials file '\(path)' ('\(key.rawValue)'\(from)) \(problem); it must be \(key.summary)",
            key: key.rawValue)
    }
}
