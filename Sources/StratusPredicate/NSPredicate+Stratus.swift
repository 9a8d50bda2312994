import Foundation

#if !canImport(Darwin)
    extension NSPredicate {
        /// Creates a predicate from a format string and variadic arguments, as on Apple platforms
        /// (swift-corelibs-foundation marks its own initialiser unavailable).
        ///
        /// The arguments are read back as the values they are (`as?` casts on the `CVarArg`
        /// existentials), never through C varargs. The string is parsed immediately; unlike
        /// Apple's Foundation, a malformed string does not raise: the predicate is created, never
        /// matches, and ``stratusPredicate`` carries the ``QueryPredicateError`` the engine reports as
        /// `CKError.invalidArguments` when the query runs.
        ///
        /// - Parameters:
        ///   - predicateFormat: the format string, such as `"modified > %@ AND tags CONTAINS %@"`.
        ///   - args: one argument per `%@`, `%K`, `%d`, `%f`, … in the string.
        public convenience init(format predicateFormat: String, _ args: any CVarArg...) {
            self.init(stratusFormat: predicateFormat, arguments: args.map { $0 as Any })
        }

        /// Creates a predicate from a format string and an array of arguments, as on Apple
        /// platforms (swift-corelibs-foundation marks its own initialiser unavailable). See
        /// ``init(format:_:)``; `nil` means no arguments.
        public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
            self.init(stratusFormat: predicateFormat, arguments: arguments ?? [])
        }

        private convenience init(stratusFormat format: String, arguments: [Any]) {
            let result: Result<QueryPredicate, QueryPredicateError>
            do {
                result = .success(try QueryPredicate.parse(format: format, arguments: arguments))
            } catch {
                result = .failure(error)
            }
            self.init(block: { object, _ in
                guard case .success(let expression) = result,
                    let subject = object as? any PredicateSubject
                else { return false }
                return expression.evaluate(subject)
            })
            PredicateRegistry.predicates.set(ParsedPredicate(format: format, result: result), for: self)
        }
    }
#endif

extension NSPredicate {
    /// The predicate as Stratus reads it: its parsed expression, or why it cannot be used.
    ///
    /// - Predicates made by `NSPredicate(format:…)`: the expression parsed at creation, or
    ///   its parse error.
    /// - `NSPredicate(value: true)` / `(value: false)`: ``QueryPredicate/true`` /
    ///   ``QueryPredicate/false`` (recognised by Foundation's `predicateFormat`, which
    ///   reads `TRUEPREDICATE` / `FALSEPREDICATE`).
    /// - `NSCompoundPredicate`s of such predicates: the `and`/`or`/`not` of their
    ///   subpredicates' expressions (an empty AND is `true`, an empty OR `false`).
    /// - Anything else — block predicates, and on Linux **copies** of format predicates
    ///   (corelibs' `copy()` makes a new block predicate that the side table does not know) —
    ///   fails with ``QueryPredicateError/Code/unsupported``. Keep the original predicate object;
    ///   predicates are immutable, so there is no need to copy them.
    ///
    /// This does not check CloudKit's restrictions; call
    /// ``QueryPredicate/validateForCloudKit()`` on the expression for that.
    public var stratusPredicate: Result<QueryPredicate, QueryPredicateError> {
        if let parsed = PredicateRegistry.predicates.value(for: self) {
            return parsed.result
        }
        if let compound = self as? NSCompoundPredicate {
            return compound.stratusCompoundPredicate
        }
        switch foundationPredicateFormat {
        case "TRUEPREDICATE":
            return .success(.true)
        case "FALSEPREDICATE":
            return .success(.false)
        default:
            #if canImport(Darwin)
                do {
                    return .success(try QueryPredicate.parse(format: foundationPredicateFormat))
                } catch {
                    return .failure(error)
                }
            #else
                return .failure(
                    QueryPredicateError(
                        .unsupported,
                        "Block predicates are not supported in CloudKit queries; use NSPredicate(format:), NSPredicate(value:) or an NSCompoundPredicate of them (on Linux a copy() of a format predicate is a block predicate: pass the original)"
                    ))
            #endif
        }
    }

    /// The parsed expression (``stratusPredicate`` when it succeeded), `nil` otherwise.
    /// Value predicates give ``QueryPredicate/true`` or ``QueryPredicate/false``.
    public var stratusExpression: QueryPredicate? {
        try? stratusPredicate.get()
    }

    /// Why the predicate cannot be used (``stratusPredicate`` when it failed), `nil` otherwise.
    public var stratusParseError: QueryPredicateError? {
        if case .failure(let error) = stratusPredicate { return error }
        return nil
    }

    /// The predicate in format syntax, what Apple's `predicateFormat` returns.
    ///
    /// corelibs' `predicateFormat` cannot be overridden from an extension and reads
    /// `BLOCKPREDICATE` for format predicates, so Stratus offers this instead: the parsed
    /// expression with its arguments written as literals (`name == "Bob" AND age > 3`), the
    /// original format string when parsing failed, and Foundation's `predicateFormat`
    /// otherwise.
    public var stratusPredicateFormat: String {
        if let parsed = PredicateRegistry.predicates.value(for: self) {
            switch parsed.result {
            case .success(let expression): return expression.description
            case .failure: return parsed.format
            }
        }
        if let expression = stratusExpression {
            return expression.description
        }
        return foundationPredicateFormat
    }
}

extension NSCompoundPredicate {
    fileprivate var stratusCompoundPredicate: Result<QueryPredicate, QueryPredicateError> {
        var expressions: [QueryPredicate] = []
        for subpredicate in subpredicates {
            switch subpredicate.stratusPredicate {
            case .success(let expression): expressions.append(expression)
            case .failure(let error): return .failure(error)
            }
        }
        switch compoundPredicateType {
        case .and:
            switch expressions.count {
            case 0: return .success(.true)
            case 1: return .success(expressions[0])
            default: return .success(.and(expressions))
            }
        case .or:
            switch expressions.count {
            case 0: return .success(.false)
            case 1: return .success(expressions[0])
            default: return .success(.or(expressions))
            }
        case .not:
            guard expressions.count == 1 else {
                return .failure(
                    QueryPredicateError(
                        .syntax,
                        "A NOT compound predicate needs exactly one subpredicate, got \(expressions.count)"
                    ))
            }
            return .success(.not(expressions[0]))
        @unknown default:
            return .failure(QueryPredicateError(.unsupported, "Unknown compound predicate type"))
        }
    }
}
