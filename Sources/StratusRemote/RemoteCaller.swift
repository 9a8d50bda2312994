import Foundation
import Stratus
import StratusWebServices
import Synchronization

/// Who a remote container's credentials name: the user record name `users/caller` answers,
/// asked once per container on its first operation and kept.
final class RemoteCaller: Sendable {
    private let transport: RemoteTransport
    private let known = Mutex<String?>(nil)

    init(transport: RemoteTransport) {
        self.transport = transport
    }

    /// The caller's user record name.
    ///
    /// - Throws: the `CKError` of `users/caller`: `notAuthenticated` for credentials the server
    ///   refuses, `networkUnavailable` when it cannot be reached.
    func userRecordName() throws(CKError) -> String {
        if let name = known.withLock({ $0 }) { return name }
        let answer = try transport.post(.public, "users/caller", [:])
        guard case .string(let name) = answer["userRecordName"], !name.isEmpty else {
            throw RemoteFailure.error(.serverResponseLost, "users/caller answered no userRecordName")
        }
        known.withLock { $0 = name }
        return name
    }
}
