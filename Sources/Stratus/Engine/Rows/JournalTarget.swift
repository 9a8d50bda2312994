import Foundation

/// Where and as whom a long-lived operation submitted to stratusd runs (decision 0014.8): the
/// target database's namespace and scope, and the caller. Its journal lives under the caller's
/// own namespace, whatever database it targets; the header keeps the target, so any process
/// can resume the operation after a restart.
package struct JournalTarget: Sendable, Equatable {
    /// The namespace of the database the operation reads and writes.
    package var namespace: Namespace
    /// The caller the operation runs as.
    package var caller: Caller

    package init(namespace: Namespace, caller: Caller) {
        self.namespace = namespace
        self.caller = caller
    }

    func encode(to w: inout ByteWriter) {
        w.write(namespace.container)
        w.write(namespace.environment.rawValue)
        w.write(namespace.owner)
        w.write(caller.userRecordName)
        w.write(caller.role.journalCode)
    }

    init(from r: inout ByteReader) throws {
        let container = try r.readString()
        guard let environment = Namespace.Environment(rawValue: try r.readString()) else {
            throw EngineError.corruptValue
        }
        let owner = try r.readString()
        let name = try r.readString()
        guard let role = Caller.Role(journalCode: try r.readByte()) else { throw EngineError.corruptValue }
        namespace = Namespace(container: container, environment: environment, owner: owner)
        caller = Caller(userRecordName: name, role: role)
    }
}

extension Caller.Role {
    /// The role's byte in a journal header.
    var journalCode: UInt8 {
        switch self {
        case .anonymous: return 0
        case .user: return 1
        case .admin: return 2
        }
    }

    init?(journalCode: UInt8) {
        switch journalCode {
        case 0: self = .anonymous
        case 1: self = .user
        case 2: self = .admin
        default: return nil
        }
    }
}
