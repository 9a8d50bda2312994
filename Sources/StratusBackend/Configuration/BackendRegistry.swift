import Synchronization

/// Backend providers by URL scheme: turns a configured URL into a backend.
///
/// ```swift
/// let registry = BackendRegistry([SQLiteBackendProvider(), InMemoryBackendProvider()])
/// let backend = try registry.makeBackend(for: "sqlite:///var/lib/app/store.sqlite?durability=normal")
/// ```
///
/// ``shared`` is the process-wide registry that configuration start-up uses; a program or a
/// test may make registries of its own, so nothing forces one global choice. A registry is
/// safe to use from any thread.
public final class BackendRegistry: Sendable {
    /// The process-wide registry. Empty until something registers providers (the
    /// `StratusConfiguration` start-up registers the built-in ones).
    public static let shared = BackendRegistry()

    private let providersByScheme: Mutex<[String: any BackendProvider]>

    /// A registry holding `providers` (a later provider replaces an earlier one of the same
    /// scheme).
    public init(_ providers: [any BackendProvider] = []) {
        var byScheme: [String: any BackendProvider] = [:]
        for provider in providers { byScheme[provider.scheme.lowercased()] = provider }
        providersByScheme = Mutex(byScheme)
    }

    /// Registers `provider` for its scheme.
    ///
    /// - Parameters:
    ///   - provider: the provider; its ``BackendProvider/scheme`` is the key, in any case.
    ///   - replacing: whether to replace a provider already registered for the scheme. With
    ///     `false`, an existing provider stays (how start-up adds the built-in providers
    ///     without undoing a custom one).
    /// - Returns: whether `provider` is now the scheme's provider.
    @discardableResult
    public func register(_ provider: any BackendProvider, replacing: Bool = true) -> Bool {
        let scheme = provider.scheme.lowercased()
        return providersByScheme.withLock { providers in
            if !replacing && providers[scheme] != nil { return false }
            providers[scheme] = provider
            return true
        }
    }

    /// Removes the provider of `scheme`, if any, and returns it.
    @discardableResult
    public func unregister(scheme: String) -> (any BackendProvider)? {
        providersByScheme.withLock { $0.removeValue(forKey: scheme.lowercased()) }
    }

    /// The provider of `scheme`, if one is registered.
    public func provider(forScheme scheme: String) -> (any BackendProvider)? {
        providersByScheme.withLock { $0[scheme.lowercased()] }
    }

    /// The registered schemes, sorted.
    public var schemes: [String] {
        providersByScheme.withLock { Array($0.keys) }.sorted()
    }

    /// The registered providers, sorted by scheme.
    public var providers: [any BackendProvider] {
        providersByScheme.withLock { Array($0.values) }.sorted { $0.scheme < $1.scheme }
    }

    /// Checks `url`'s scheme and option names and returns its provider.
    ///
    /// - Throws: ``BackendConfigurationError`` with code
    ///   ``BackendConfigurationError/Code-swift.struct/unknownScheme`` (listing the registered
    ///   schemes) or ``BackendConfigurationError/Code-swift.struct/unknownOption`` (listing the
    ///   accepted options).
    public func provider(for url: BackendURL) throws -> any BackendProvider {
        guard let provider = provider(forScheme: url.scheme) else {
            let registered = schemes
            throw BackendConfigurationError(
                .unknownScheme,
                "unknown backend scheme '\(url.scheme)' in '\(url)'; registered schemes: "
                    + (registered.isEmpty ? "none" : registered.joined(separator: ", ")),
                url: url)
        }
        let accepted = provider.options.map(\.name)
        for option in url.options where !accepted.contains(option.name) {
            let list =
                accepted.isEmpty ? "it accepts no options" : "accepted options: " + accepted.joined(separator: ", ")
            throw BackendConfigurationError(
                .unknownOption, "unknown option '\(option.name)' in '\(url)'; \(list)", url: url)
        }
        return provider
    }

    /// Opens the backend `url` names, through its scheme's provider.
    ///
    /// - Throws: ``BackendConfigurationError``: an unknown scheme or option, an option value
    ///   or location the provider rejects, or ``BackendConfigurationError/Code-swift.struct/cannotOpen``
    ///   wrapping the backend's own error.
    public func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
        let provider = try provider(for: url)
        do {
            return try provider.makeBackend(for: url)
        } catch let error as BackendConfigurationError {
            throw error
        } catch {
            throw BackendConfigurationError(
                .cannotOpen, "cannot open backend '\(url)': \(error)", url: url, underlying: error)
        }
    }

    /// Parses `url` and opens the backend it names; see ``makeBackend(for:)``.
    public func makeBackend(for url: String) throws -> any DatabaseBackend {
        try makeBackend(for: BackendURL(url))
    }

    /// Makes fresh, empty storage like `url`'s, through its scheme's provider; see
    /// ``BackendProvider/makeTemporaryStorage(like:)``.
    public func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage {
        let provider = try provider(for: url)
        do {
            return try provider.makeTemporaryStorage(like: url)
        } catch let error as BackendConfigurationError {
            throw error
        } catch {
            throw BackendConfigurationError(
                .cannotOpen, "cannot make temporary storage like '\(url)': \(error)", url: url,
                underlying: error)
        }
    }
}
