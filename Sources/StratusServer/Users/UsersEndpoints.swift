import Foundation
import Hummingbird
internal import Stratus

/// `users/caller` and its older name `users/current`: who the credentials say is asking.
/// Stratus keeps no names or e-mail addresses for users (sessions are minted by the app's own
/// backend, decision 0013), so the answer is `{userRecordName}` only; a caller without a
/// session gets the anonymous name, a server-to-server key its `_server_…` name.
enum UsersEndpoints {
    static let caller = DatabaseOperation(
        name: "users/caller", methods: [.get, .post], writes: false, handle: handle)
    static let current = DatabaseOperation(
        name: "users/current", methods: [.get, .post], writes: false, handle: handle)

    static func handle(_ call: DatabaseCall) async throws -> Response {
        call.respond(["userRecordName": .string(call.caller.userRecordName)])
    }
}
