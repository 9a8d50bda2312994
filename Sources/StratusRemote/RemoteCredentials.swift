public import Crypto

/// How a remote container authenticates to `stratusd` (decision 0013): a container's API token,
/// with a user's web auth token for everything but anonymous public reads; or a server-to-server
/// key, for an app's own backend, which reaches the public database only.
///
/// Credentials are secrets: their `description` shows neither token, so logging a server or its
/// credentials never leaks them.
public enum RemoteCredentials: Sendable, CustomStringConvertible {
    /// A user's session: the container's API token (`ckAPIToken`) and the user's web auth token
    /// (`ckWebAuthToken`), from `stratusd admin session create` or the app's sign-in backend.
    case session(apiToken: String, webAuthToken: String)
    /// The API token alone: an anonymous caller, who may read the public database.
    case apiToken(String)
    /// A server-to-server key: every request is signed with the P-256 private key whose public
    /// half `stratusd admin key add` registered as `keyID` (Apple's *Accessing CloudKit Using a
    /// Server-to-Server Key*). The caller is the key itself, an administrator of the public
    /// database; the private and shared databases refuse it.
    case serverToServer(keyID: String, privateKey: P256.Signing.PrivateKey)

    /// A server-to-server key from its PEM text (what `openssl ecparam -name prime256v1
    /// -genkey -noout` writes).
    ///
    /// - Throws: ``RemoteCredentialsError`` when the text is not a P-256 private key, saying so
    ///   without quoting it.
    public static func serverToServer(keyID: String, privateKeyPEM: String) throws -> RemoteCredentials {
        do {
            return .serverToServer(
                keyID: keyID, privateKey: try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM))
        } catch {
            throw RemoteCredentialsError(
                description: "the server-to-server key of key ID \(keyID) is not a P-256 private key in PEM form")
        }
    }

    /// The query items a request carries.
    var queryItems: [(String, String)] {
        switch self {
        case .session(let apiToken, let webAuthToken):
            return [("ckAPIToken", apiToken), ("ckWebAuthToken", webAuthToken)]
        case .apiToken(let apiToken):
            return [("ckAPIToken", apiToken)]
        case .serverToServer:
            return []
        }
    }

    /// Which kind of credentials these are; never a token.
    public var description: String {
        switch self {
        case .session: return "RemoteCredentials.session(<redacted>)"
        case .apiToken: return "RemoteCredentials.apiToken(<redacted>)"
        case .serverToServer(let keyID, _): return "RemoteCredentials.serverToServer(keyID: \(keyID), <redacted>)"
        }
    }
}

extension RemoteCredentials: CustomReflectable {
    /// No children: `dump` and debuggers show the kind, never a token.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}

/// Credentials that cannot be made, saying why without quoting a secret.
public struct RemoteCredentialsError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public var description: String
}
