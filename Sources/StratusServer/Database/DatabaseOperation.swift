import Hummingbird

/// One endpoint under `/database/1/{container}/{environment}/{database}/`, such as
/// `records/modify`: the methods it answers, whether it changes data, and its handler.
struct DatabaseOperation: Sendable {
    /// The path below the database, such as `records/modify`.
    var name: String
    /// The methods it answers; any other gets 405.
    var methods: [HTTPRequest.Method]
    /// Whether it writes: in the public database a write needs a user or a server key.
    var writes: Bool
    /// Translates the request for the engine and the engine's answer back.
    var handle: @Sendable (DatabaseCall) async throws -> Response
}
