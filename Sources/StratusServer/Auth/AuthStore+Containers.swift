import Foundation
internal import Stratus

extension AuthStore {
    /// Disables `container`: every credential of it is refused from then on, and nothing is
    /// deleted. `createContainer` enables it again.
    ///
    /// - Throws: ``AuthError`` when there is no such container.
    package func disableContainer(_ container: String, now: Date = Date()) throws {
        try data.write { writer -> Result<Void, AuthError> in
            let key = Self.containerPrefix + Array(container.utf8)
            guard var entry = try writer.get(key).map(Self.decode(ContainerEntry.self)) else {
                return .failure(AuthError("no container named '\(container)'"))
            }
            if entry.disabled == nil { entry.disabled = now }
            try writer.set(key, Self.encode(entry))
            return .success(())
        }.get()
    }

    /// The container named `container`, enabled or disabled, or `nil` when there is none.
    package func container(_ container: String) throws -> ContainerEntry? {
        try data.read { reader in
            try reader.get(Self.containerPrefix + Array(container.utf8)).map(Self.decode(ContainerEntry.self))
        }
    }

    /// Why `container` × `environment` cannot take a new credential, or `nil` when it can.
    static func refusal(
        container: String, environment: Namespace.Environment?, get: ([UInt8]) throws -> [UInt8]?
    ) throws -> AuthError? {
        guard let stored = try get(containerPrefix + Array(container.utf8)) else {
            return AuthError("no container named '\(container)' (create it with `stratusd admin container create`)")
        }
        let entry = try decode(ContainerEntry.self)(stored)
        if entry.disabled != nil { return AuthError("container '\(container)' is disabled") }
        if let environment, !entry.environments.contains(environment) {
            return AuthError("container '\(container)' has no \(environment.rawValue) environment")
        }
        return nil
    }
}
