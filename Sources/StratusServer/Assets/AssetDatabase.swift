import Foundation
package import Stratus

/// The database an asset ticket is bound to: a namespace (container, environment, owner) and
/// a scope, as ticket fields.
package struct AssetDatabase: Sendable, Hashable {
    /// The container, environment and owner.
    package var namespace: Namespace
    /// The public, private or shared database.
    package var scope: CKDatabase.Scope

    /// The database `scope` of `namespace`.
    package init(namespace: Namespace, scope: CKDatabase.Scope) {
        self.namespace = namespace
        self.scope = scope
    }

    /// The database of a request to `path` by `caller` (the owner as ``DatabaseCall`` chooses it).
    init(_ call: DatabaseCall) {
        let owner = call.path.scope == .public ? "" : call.caller.userRecordName
        namespace = Namespace(container: call.path.container, environment: call.path.environment, owner: owner)
        scope = call.path.scope
    }

    /// The four fields that name it in a ticket.
    var fields: [String] {
        [namespace.container, namespace.environment.rawValue, namespace.owner, scope.name]
    }

    /// The database the first four of `fields` name; `nil` when they name none.
    init?(fields: ArraySlice<String>) {
        guard fields.count >= 4 else { return nil }
        let values = Array(fields.prefix(4))
        guard let environment = Namespace.Environment(rawValue: values[1]),
            let scope = [CKDatabase.Scope.public, .private, .shared].first(where: { $0.name == values[3] })
        else { return nil }
        namespace = Namespace(container: values[0], environment: environment, owner: values[2])
        self.scope = scope
    }

    /// The engine's context for it (a download or an upload has no caller of its own).
    func context(_ engine: Engine) throws -> DatabaseContext {
        try engine.database(namespace: namespace, scope: scope)
    }
}
