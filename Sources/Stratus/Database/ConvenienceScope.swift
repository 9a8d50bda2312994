import Foundation

/// A configuration and group that `configuredWith(configuration:group:body:)` applies to the
/// operations a database's convenience methods create inside its body.
struct ConvenienceScope: Sendable {
    /// The database the scope applies to.
    let database: ObjectIdentifier
    /// The configuration to give the operations, if any.
    let configuration: CKOperation.Configuration?
    /// The group to put the operations in, if any.
    let group: CKOperationGroup?

    /// The scopes in effect, innermost last (task-local, so they follow `async let` and child
    /// tasks but not unstructured tasks or the completion handlers of convenience methods).
    @TaskLocal static var current: [ConvenienceScope] = []
}
