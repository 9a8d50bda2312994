import Foundation
internal import Stratus

/// Users of a container (decision 0013.4): an external ID, as the app's own sign-in knows the
/// user, and the user record name CloudKit shows, made at first sight and stable after.
///
/// | Key | Value (JSON) |
/// |---|---|
/// | `06 05 (container, external ID)` | the user record name (a string) |
/// | `06 06 (container, user record name)` | ``UserEntry`` |
extension AuthStore {
    /// The user `externalID` names in `container`, made now when it is seen for the first time.
    ///
    /// - Throws: ``AuthError`` when the container does not exist or is disabled, or the
    ///   external ID is empty or longer than ``UserEntry/maxExternalIDLength`` bytes.
    @discardableResult
    package func createUser(container: String, externalID: String, now: Date = Date()) throws -> UserEntry {
        try UserEntry.validate(externalID: externalID)
        return try data.write { writer -> Result<UserEntry, AuthError> in
            if let refusal = try Self.refusal(container: container, environment: nil, get: writer.get) {
                return .failure(refusal)
            }
            return .success(try Self.user(container: container, externalID: externalID, now: now, writer: writer))
        }.get()
    }

    /// The user `externalID` names in `container`, or `nil` when it was never seen.
    package func user(container: String, externalID: String) throws -> UserEntry? {
        try data.read { reader in
            guard let name = try reader.get(Self.key(Self.userByExternalIDPrefix, container, externalID)) else {
                return nil
            }
            let recordName = try Self.decode(String.self)(name)
            return try reader.get(Self.key(Self.userPrefix, container, recordName)).map(Self.decode(UserEntry.self))
        }
    }

    /// The users of `container`, by user record name.
    package func users(container: String) throws -> [UserEntry] {
        try data.read { reader in
            try reader.scan(Self.range(Self.userPrefix, within: container), limit: Int.max).map {
                try Self.decode(UserEntry.self)($0.value)
            }
        }
    }

    /// Disables the user `userRecordName` of `container`: its sessions are refused from then on
    /// and no new one is made. Disabling twice changes nothing.
    ///
    /// - Throws: ``AuthError`` when `container` has no such user.
    package func disableUser(container: String, userRecordName: String, now: Date = Date()) throws {
        try data.write { writer -> Result<Void, AuthError> in
            let key = Self.key(Self.userPrefix, container, userRecordName)
            guard var entry = try writer.get(key).map(Self.decode(UserEntry.self)) else {
                return .failure(AuthError("container '\(container)' has no user \(userRecordName)"))
            }
            if entry.disabled == nil { entry.disabled = now }
            try writer.set(key, Self.encode(entry))
            return .success(())
        }.get()
    }

    /// Finds or makes the user, inside a write transaction.
    static func user(container: String, externalID: String, now: Date, writer: ServerData.Writer) throws -> UserEntry {
        let indexKey = key(userByExternalIDPrefix, container, externalID)
        if let name = try writer.get(indexKey) {
            let recordName = try decode(String.self)(name)
            if let stored = try writer.get(key(userPrefix, container, recordName)) {
                return try decode(UserEntry.self)(stored)
            }
        }
        let entry = UserEntry(
            container: container, userRecordName: "_" + Secret.hex(Secret.bytes(16)), externalID: externalID,
            created: now, disabled: nil)
        try writer.set(indexKey, encode(entry.userRecordName))
        try writer.set(key(userPrefix, container, entry.userRecordName), encode(entry))
        return entry
    }
}

/// A user of a container.
package struct UserEntry: Codable, Hashable, Sendable {
    /// The container the user belongs to.
    package var container: String
    /// The user record name: `_` and 32 random hex digits, stable for the external ID.
    package var userRecordName: String
    /// The ID the app's own sign-in gives the user.
    package var externalID: String
    /// When the user was first seen.
    package var created: Date
    /// When the user was disabled, if ever: no session is made for a disabled user.
    package var disabled: Date?

    /// The longest external ID, in UTF-8 bytes (it is part of a store key).
    package static let maxExternalIDLength = 200

    /// Refuses an empty or overlong external ID.
    static func validate(externalID: String) throws {
        guard !externalID.isEmpty, externalID.utf8.count <= maxExternalIDLength else {
            throw AuthError("a user's external ID is 1 to \(maxExternalIDLength) bytes of UTF-8")
        }
    }
}
