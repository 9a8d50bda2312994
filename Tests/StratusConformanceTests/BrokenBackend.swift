import StratusConformance
import StratusTestSupport
import Testing

/// A deliberately broken backend, and the conformance case that must catch it.
///
/// Each one is the in-memory backend behind a ``WrappingFixture`` whose hooks break exactly one
/// promise of the SPI. To add one: write its hooks (a file of its own when they need helper
/// types), add a `static let` in `BrokenBackend+Catalogue.swift` and list it in `all`.
struct BrokenBackend: Sendable, CustomTestStringConvertible {
    /// The broken fixture.
    let fixture: WrappingFixture
    /// The ID of the case that must fail on it.
    let caughtBy: String

    /// A backend named `name`, made by wrapping the in-memory fixture with `makeHooks`' hooks,
    /// that `caughtBy` must catch.
    init(_ name: String, caughtBy: String, makeHooks: @escaping @Sendable () -> BackendHooks) {
        fixture = WrappingFixture(name: name, base: InMemoryFixture(), makeHooks: makeHooks)
        self.caughtBy = caughtBy
    }

    var testDescription: String { "\(fixture.name) caught by \(caughtBy)" }
}
