import Foundation

/// Who a request runs for (decision 0012.3): the user record name written as a record's creator
/// and last modifier, and the role the public database's rules are checked against.
///
/// Embedded containers run as the engine's single local user with role ``Role/admin`` (no role
/// checks), exactly as before callers existed; stratusd passes the authenticated caller.
package struct Caller: Sendable, Hashable {
    /// Apple's default public-database roles (custom security roles are not supported).
    package enum Role: Sendable, Hashable {
        /// No signed-in user (an API token alone): reads only.
        case anonymous
        /// A signed-in user: creates records, and changes or deletes only those it created.
        case user
        /// A server-to-server key, or an embedded container: no role checks.
        case admin
    }

    /// The user record name written as `creatorUserRecordID` / `lastModifiedUserRecordID`.
    package var userRecordName: String
    /// What the caller may do in the public database.
    package var role: Role

    /// A caller with this user record name and role.
    package init(userRecordName: String, role: Role) {
        self.userRecordName = userRecordName
        self.role = role
    }
}

/// Apple's default public-database roles, checked per item (decision 0012.3). Private and shared
/// databases check no roles; an ``Caller/Role/admin`` caller is never checked.
extension DatabaseContext {
    /// Whether this context's writes are subject to the public database's roles.
    var checksRoles: Bool { scope == .public && caller.role != .admin }

    /// `permissionFailure` when an anonymous caller tries to write in the public database;
    /// `what` names the item (e.g. "record 'X'").
    func anonymousWriteError(_ what: @autoclosure () -> String) -> CKError? {
        guard checksRoles, caller.role == .anonymous else { return nil }
        return .make(
            .permissionFailure,
            "\(what()) cannot be changed: writing to the public database needs a signed-in user")
    }

    /// `permissionFailure` when a user tries to change or delete a public record it did not
    /// create.
    func creatorError(recordName: String, creator: String) -> CKError? {
        guard checksRoles, creator != caller.userRecordName else { return nil }
        return .make(
            .permissionFailure,
            "record '\(recordName)' was created by another user; only its creator can change or delete it")
    }
}

extension Engine {
    /// The caller of embedded containers: the single local user, unchecked.
    var embeddedCaller: Caller { Caller(userRecordName: userRecordName, role: .admin) }
}
