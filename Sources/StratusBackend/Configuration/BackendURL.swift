/// A backend named by a URL: `sqlite:///var/lib/app/store.sqlite?durability=normal`,
/// `sqlite::memory:`, `memory:`, and in later versions `lmdb:///dir` or
/// `postgresql://user@host:5432/db`.
///
/// The scheme picks a ``BackendProvider`` in a ``BackendRegistry``; the rest is the provider's
/// to interpret. Parsing is generic and strict:
///
/// ```
/// scheme ":" [ "//" [user [":" password] "@"] host [":" port] ] path [ "?" name "=" value ( "&" name "=" value )* ]
/// ```
///
/// - The scheme is case-insensitive and kept in lowercase.
/// - With `//`, the text up to the next `/` is the authority: `sqlite:///abs/path` has an empty
///   authority and the path `/abs/path`. Without `//`, everything up to `?` is the path:
///   `sqlite:relative/path`, `sqlite::memory:`, `memory:name`.
/// - The path, the user, the password and option names and values are percent-decoded
///   (`%20` is a space; `+` stays a plus).
/// - Options are the query's `name=value` pairs, in order. A name given twice, an empty name
///   and a `#fragment` are errors.
///
/// A ``description`` never shows the password.
public struct BackendURL: Sendable, Hashable, CustomStringConvertible {
    /// One `name=value` query parameter.
    public struct Option: Sendable, Hashable {
        /// The option's name, such as `durability`.
        public var name: String
        /// The option's value, such as `normal` (empty for `?name` or `?name=`).
        public var value: String

        /// An option `name=value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The part after `//`: `[user[:password]@]host[:port]`.
    public struct Authority: Sendable, Hashable {
        /// The user name, if the URL has one.
        public var user: String?
        /// The password, if the URL has one. Never printed by ``BackendURL/description``.
        public var password: String?
        /// The host name or address (brackets of an IPv6 address removed); empty in
        /// `sqlite:///path`.
        public var host: String
        /// The port, if the URL has one.
        public var port: Int?

        /// An authority; every part but the host is optional.
        public init(user: String? = nil, password: String? = nil, host: String, port: Int? = nil) {
            self.user = user
            self.password = password
            self.host = host
            self.port = port
        }
    }

    /// The scheme, in lowercase: `sqlite`, `memory`, `lmdb`, `postgresql`, …
    public let scheme: String
    /// The authority, when the URL has `//` after the scheme (`sqlite:///x` has one, with an
    /// empty host); `nil` otherwise (`sqlite:x`, `memory:`).
    public let authority: Authority?
    /// The percent-decoded path: `/var/lib/app/store.sqlite`, `relative/path`, `:memory:`,
    /// or empty.
    public let path: String
    /// The query's options, in the order given.
    public let options: [Option]

    /// Parses `string`.
    ///
    /// - Throws: ``BackendConfigurationError`` with code
    ///   ``BackendConfigurationError/Code-swift.struct/malformedURL``, saying what is wrong.
    public init(_ string: String) throws {
        self = try BackendURLParser(string).parse()
    }

    /// A URL made of parts. Option names must be unique.
    public init(scheme: String, authority: Authority? = nil, path: String, options: [Option] = []) {
        self.scheme = scheme.lowercased()
        self.authority = authority
        self.path = path
        self.options = options
    }

    /// The value of option `name`, or `nil` when the URL does not set it. Names are
    /// case-sensitive.
    public func option(_ name: String) -> String? {
        options.first { $0.name == name }?.value
    }

    /// This URL with option `name` set to `value` (replacing an earlier value), or removed for
    /// `nil`.
    public func settingOption(_ name: String, to value: String?) -> BackendURL {
        var options = self.options.filter { $0.name != name }
        if let value { options.append(Option(name: name, value: value)) }
        return BackendURL(scheme: scheme, authority: authority, path: path, options: options)
    }

    /// The URL as text, percent-encoded where needed, password included: what to hand to
    /// another process. Parsing it gives this URL back.
    public var string: String { render(redactingPassword: false) }

    /// The URL as text for people and logs: a password shows as `***`.
    public var description: String { render(redactingPassword: true) }

    /// Whether an option's value may be a secret, and is therefore never shown: a password
    /// (`password`, `sslpassword`, libpq's names), a token, a key or a secret, in any case.
    static func isSecret(option name: String) -> Bool {
        let lowered = name.lowercased()
        return ["pass", "secret", "token", "key"].contains { lowered.contains($0) }
    }

    private func render(redactingPassword: Bool) -> String {
        var text = scheme + ":"
        if let authority {
            text += "//"
            if let user = authority.user {
                text += PercentEncoding.encode(user, allowing: PercentEncoding.userInfoSafe)
                if let password = authority.password {
                    text +=
                        ":"
                        + (redactingPassword
                            ? "***" : PercentEncoding.encode(password, allowing: PercentEncoding.userInfoSafe))
                }
                text += "@"
            }
            text += authority.host.contains(":") ? "[\(authority.host)]" : authority.host
            if let port = authority.port { text += ":\(port)" }
        }
        text += PercentEncoding.encode(path, allowing: PercentEncoding.pathSafe)
        if !options.isEmpty {
            text +=
                "?"
                + options.map {
                    let value =
                        redactingPassword && Self.isSecret(option: $0.name)
                        ? "***" : PercentEncoding.encode($0.value, allowing: PercentEncoding.querySafe)
                    return PercentEncoding.encode($0.name, allowing: PercentEncoding.querySafe) + "=" + value
                }
                .joined(separator: "&")
        }
        return text
    }
}
