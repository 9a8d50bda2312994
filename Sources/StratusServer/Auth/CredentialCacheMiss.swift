/// A credential the cache does not hold, asked of an authenticator that may not read the
/// store (``Authenticator/authenticateFromCache(container:environment:credentials:now:)``).
struct CredentialCacheMiss: Error {}
