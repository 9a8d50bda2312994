import StratusBackend

/// The argument and lifetime checks both transactions make, each mapped to a `BackendError`
/// code once, here.
enum TransactionChecks {
    /// Throws unless the transaction's body is still running.
    static func active(_ isActive: Bool) throws {
        guard isActive else {
            throw BackendError(
                .invalidArgument, "a sorted-array transaction was used after its body returned")
        }
    }

    /// Throws unless `limit` is a valid scan limit (at least 1).
    static func limit(_ limit: Int) throws {
        guard limit >= 1 else {
            throw BackendError(.invalidArgument, "a scan limit must be at least 1, not \(limit)")
        }
    }
}
