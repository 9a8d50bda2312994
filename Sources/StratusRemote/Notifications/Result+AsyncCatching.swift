extension Result {
    /// The value `body` returns, or the error it throws; `body` runs on the caller's actor.
    ///
    /// A `Result` rather than `let x; do { x = try … } catch …`, which crashes the Swift 6.3.1
    /// compiler with typed throws.
    init(
        asyncCatching body: () async throws(Failure) -> Success, isolation: isolated (any Actor)? = #isolation
    ) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
