/// Makes backends from URLs of one scheme: how a backend module joins configuration.
///
/// Each backend module offers one provider (`SQLiteBackendProvider`, `InMemoryBackendProvider`,
/// …), and a custom backend joins with one registration:
///
/// ```swift
/// struct SortedArrayProvider: BackendProvider {
///     var scheme: String { "sorted" }
///     var summary: String { "SortedArrayBackend, in memory" }
///     var options: [BackendOption] { [] }
///     func makeBackend(for url: BackendURL) throws -> any DatabaseBackend { SortedArrayBackend() }
/// }
/// BackendRegistry.shared.register(SortedArrayProvider())
/// ```
///
/// A provider is a value with no state of its own that matters to callers; it is called from
/// any thread. Before ``makeBackend(for:)`` runs, the registry has checked that the URL's
/// scheme is ``scheme`` and that every option it sets is one of ``options``; the provider
/// checks option values (with ``BackendURL/choice(_:_:default:)`` and its siblings) and the
/// location.
public protocol BackendProvider: Sendable {
    /// The URL scheme this provider serves, in lowercase, such as `sqlite`.
    var scheme: String { get }

    /// One line for listings, such as `SQLite, the embedded default: a file, or memory`.
    var summary: String { get }

    /// The URL forms the provider accepts, as examples for help and error messages, such as
    /// `sqlite:///var/lib/app/store.sqlite`.
    var examples: [String] { get }

    /// The options the provider accepts as query parameters. Any other option is an error.
    var options: [BackendOption] { get }

    /// Opens the backend `url` names.
    ///
    /// - Throws: ``BackendConfigurationError`` for an option value or location the provider
    ///   does not accept; any other error when the backend cannot be opened (the registry
    ///   reports it as ``BackendConfigurationError/Code-swift.struct/cannotOpen``).
    func makeBackend(for url: BackendURL) throws -> any DatabaseBackend

    /// Makes fresh, empty, private storage of the same kind and options as `url` — a new
    /// temporary file or directory, a new store in memory, a new schema — for tests such as
    /// the conformance suite, which makes one per case.
    ///
    /// The default implementation throws ``BackendConfigurationError`` with code
    /// ``BackendConfigurationError/Code-swift.struct/unsupported``.
    func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage
}

extension BackendProvider {
    /// No examples.
    public var examples: [String] { [] }

    /// Throws ``BackendConfigurationError`` with code
    /// ``BackendConfigurationError/Code-swift.struct/unsupported``.
    public func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage {
        throw BackendConfigurationError(
            .unsupported, "the '\(scheme)' backend provider cannot make temporary storage like '\(url)'", url: url)
    }
}

/// One option a ``BackendProvider`` accepts as a URL query parameter.
public struct BackendOption: Sendable, Hashable {
    /// The option's name, such as `busyTimeout`. Names are case-sensitive.
    public var name: String
    /// The values it accepts, for people, such as `full | normal` or `a duration: 500ms, 5s`.
    public var accepted: String
    /// The value used when the URL does not set it, for people, such as `full`.
    public var defaultValue: String
    /// What it does, in one sentence.
    public var summary: String

    /// An option description.
    public init(name: String, accepted: String, defaultValue: String, summary: String) {
        self.name = name
        self.accepted = accepted
        self.defaultValue = defaultValue
        self.summary = summary
    }
}

/// Fresh, private storage made by ``BackendProvider/makeTemporaryStorage(like:)``: open as many
/// handles on it as needed, then destroy it.
public protocol TemporaryStorage: Sendable {
    /// Where the storage is, for reports.
    var url: BackendURL { get }

    /// Opens a new handle on the storage. A handle sees everything committed through earlier
    /// handles, including closed ones.
    func open() throws -> any DatabaseBackend

    /// Removes the storage and everything in it. Called once, after its last handle is closed.
    func destroy() throws
}
