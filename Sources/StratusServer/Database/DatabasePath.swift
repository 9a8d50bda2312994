import Hummingbird
internal import Stratus

/// The database a `/database/1/{container}/{environment}/{database}/…` request names,
/// checked segment by segment (decision 0012.4).
struct DatabasePath: Sendable, Hashable {
    var container: String
    var environment: Namespace.Environment
    var scope: CKDatabase.Scope

    /// The path's segments, from the route's parameters, percent-decoded
    /// (``PathSegment/namespace(_:name:)``).
    ///
    /// - Throws: 400 `BAD_REQUEST` naming a segment that does not decode to a name; 404
    ///   `NOT_FOUND` naming the segment that is not one the API has.
    init(parameters: Parameters) throws(ServerError) {
        guard let container = try parameters.namespaceSegment("container"), !container.isEmpty else {
            throw .notFound("the path has no container segment")
        }
        let environmentName = try parameters.namespaceSegment("environment") ?? ""
        guard let environment = Namespace.Environment(rawValue: environmentName) else {
            throw .notFound("'\(environmentName)' is not an environment: use development or production")
        }
        let databaseName = try parameters.namespaceSegment("database") ?? ""
        guard let scope = Self.scopes[databaseName] else {
            throw .notFound("'\(databaseName)' is not a database: use public, private or shared")
        }
        self.container = container
        self.environment = environment
        self.scope = scope
    }

    private static let scopes: [String: CKDatabase.Scope] = [
        "public": .public, "private": .private, "shared": .shared,
    ]
}
