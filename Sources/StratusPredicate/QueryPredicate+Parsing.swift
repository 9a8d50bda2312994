extension QueryPredicate {
    /// Parses a predicate format string, substituting `arguments` for its format specifiers
    /// in order.
    ///
    /// `%@` takes any value ``PredicateValue/init(argument:)`` converts; `%K` a key name
    /// (a string, which may contain dots); `%d`, `%i`, `%ld`, `%lld`, `%u`, … an integer or a
    /// Boolean; `%f`, `%lf`, `%g`, … a number; `%s` a string. Extra arguments are ignored, as
    /// Foundation ignores them; too few is an error.
    ///
    /// Parsing accepts the whole `NSPredicate` syntax CloudKit programs use, including
    /// constructs CloudKit rejects (`OR`, `ALL`, `ENDSWITH`, `LIKE`, `MATCHES`, key paths);
    /// call ``validateForCloudKit()`` to reject those.
    ///
    /// - Throws: ``QueryPredicateError`` with code ``QueryPredicateError/Code/syntax`` for malformed
    ///   strings, ``QueryPredicateError/Code/argument`` for missing or unsupported arguments, and
    ///   ``QueryPredicateError/Code/unsupported`` for syntax outside CloudKit's subset that cannot
    ///   even be represented (arithmetic, `$variables`, `@count`, unknown functions).
    public static func parse(format: String, arguments: [Any] = []) throws(QueryPredicateError) -> QueryPredicate {
        var parser = try PredicateParser(format: format, arguments: arguments)
        return try parser.parse()
    }
}
