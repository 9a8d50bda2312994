import StratusBackend

/// The backends the tool can open, for help texts: built from the providers registered in
/// ``Session/registry`` — each scheme, its summary and its example URLs — so a new provider
/// appears in `stratus --help` and `stratus conformance --help` by being registered.
enum BackendHelp {
    /// One paragraph per registered scheme, each example URL on a line of its own (help text
    /// wraps long lines, never a URL):
    ///
    /// ```
    /// lmdb: LMDB: one memory-mapped environment in a directory, growing by itself
    ///   lmdb:///var/lib/app/store.lmdb
    ///   lmdb:relative/store.lmdb?mapSize=1GiB
    /// ```
    static var schemes: String {
        text(for: Session.registry.providers)
    }

    /// The paragraphs of `providers`, in their order.
    static func text(for providers: [any BackendProvider]) -> String {
        providers.map { provider in
            let examples = provider.examples.isEmpty ? ["\(provider.scheme):"] : provider.examples
            return (["\(provider.scheme): \(provider.summary)"] + examples.map { "  " + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
