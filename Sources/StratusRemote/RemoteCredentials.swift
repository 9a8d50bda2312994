/// How a remote container authenticates to `stratusd` (decision 0013): a container's API token,
/// with a user's web auth token for everything but anonymous public reads.
///
/// Credentials are secrets: their `description` shows neither token, so logging a server or its
/// credentials never leaks them.
public enum RemoteCredentials: Sendable, CustomStringConvertible {
    /// A user's session: the container's API token (`ckAPIToken`) and the user's web auth token
    /// (`ckWebAuthToken`), from `stratusd admin session create` or the app's sign-in backend.
    case session(apiToken: String, webAuthToken: String)
    /// The API token alone: an anonymous caller, who may read the public database.
    case apiToken(String)

    /// The query items a request carries.
    var queryItems: [(String, String)] {
        switch self {
        case .session(let apiToken, let webAuthToken):
            return [("ckAPIToken", apiToken), ("ckWebAuthToken", webAuthToken)]
        case .apiToken(let apiToken):
            return [("ckAPIToken", apiToken)]
        }
    }

    /// Which kind of credentials these are; never a token.
    public var description: String {
        switch self {
        case .session: return "RemoteCredentials.session(<redacted>)"
        case .apiToken: return "RemoteCredentials.apiToken(<redacted>)"
        }
    }
}

extension RemoteCredentials: CustomReflectable {
    /// No children: `dump` and debuggers show the kind, never a token.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
