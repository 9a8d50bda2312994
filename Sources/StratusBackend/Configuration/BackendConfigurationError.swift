/// Why a backend URL could not be turned into a backend: a configuration error, with a message
/// that names the bad part and says what is accepted.
///
/// ```
/// unknown backend scheme 'lmbd' in 'lmbd:///data'; registered schemes: memory, sqlite
/// invalid value 'fast' for option 'durability' of 'sqlite:///data/app.sqlite?durability=fast': expected full or normal
/// ```
///
/// Messages never contain a password: URLs appear as their redacted ``BackendURL/description``.
public struct BackendConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What kind of configuration error this is. An open set: new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case malformedURL, unknownScheme, unknownOption, invalidOptionValue, invalidLocation, unsupported,
                cannotOpen
        }
        private let kind: Kind

        /// The text is not a backend URL (no scheme, a bad escape, a bad port, …).
        public static let malformedURL = Code(kind: .malformedURL)
        /// No provider is registered for the URL's scheme.
        public static let unknownScheme = Code(kind: .unknownScheme)
        /// The URL sets an option its provider does not accept.
        public static let unknownOption = Code(kind: .unknownOption)
        /// An option's value is not one the provider accepts.
        public static let invalidOptionValue = Code(kind: .invalidOptionValue)
        /// The location (host, path) is not one the provider accepts, such as a host in a
        /// `sqlite:` URL or a file in a directory that does not exist.
        public static let invalidLocation = Code(kind: .invalidLocation)
        /// The provider cannot do what was asked, such as making temporary storage like
        /// `sqlite::memory:` for the conformance suite.
        public static let unsupported = Code(kind: .unsupported)
        /// The URL is valid but the backend could not be opened; ``BackendConfigurationError/underlying``
        /// says why.
        public static let cannotOpen = Code(kind: .cannotOpen)

        /// The code's name, such as `unknownScheme`.
        public var description: String { kind.rawValue }
    }

    /// What kind of error this is.
    public var code: Code
    /// The whole message, naming the bad part and what is accepted.
    public var message: String
    /// The URL at fault, when there is one.
    public var url: BackendURL?
    /// The error this one wraps (for ``Code-swift.struct/cannotOpen``, the backend's error).
    public var underlying: (any Error & Sendable)?

    /// An error of `code` saying `message`.
    public init(_ code: Code, _ message: String, url: BackendURL?, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }
}

extension BackendConfigurationError {
    /// The error for an `option` of `url` whose value is not accepted; `expected` says what
    /// is, such as `"full or normal"` or `"a whole number from 1 to 64"`.
    public static func invalidOptionValue(
        _ option: String, of url: BackendURL, expected: String
    ) -> BackendConfigurationError {
        BackendConfigurationError(
            .invalidOptionValue,
            "invalid value '\(url.option(option) ?? "")' for option '\(option)' of '\(url)': expected \(expected)",
            url: url)
    }

    /// The error for a location a provider does not accept, saying why and what it accepts.
    public static func invalidLocation(_ url: BackendURL, _ reason: String) -> BackendConfigurationError {
        BackendConfigurationError(.invalidLocation, "invalid location in '\(url)': \(reason)", url: url)
    }
}
