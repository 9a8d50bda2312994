import Foundation

/// The system fields of a record that came from a server, for clients of a remote engine
/// (decision 0016.3): a record fetched over CloudKit Web Services must read as one fetched from
/// the embedded engine.
extension CKRecord {
    /// Sets the system fields the server keeps — as the engine's stored records have them — and
    /// forgets every changed key (the parent's included): the record as just fetched.
    package func setServerSystemFields(
        creationDate: Date?, modificationDate: Date?, creatorUserRecordName: String?,
        lastModifiedUserRecordName: String?, recordChangeTag: String?
    ) {
        state.withLock {
            $0.system.creationDate = creationDate
            $0.system.modificationDate = modificationDate
            $0.system.creatorUserRecordName = creatorUserRecordName
            $0.system.lastModifiedUserRecordName = lastModifiedUserRecordName
            $0.system.changeTag = recordChangeTag
            $0.changed.removeAll()
            $0.system.parentChanged = false
        }
    }
}

extension CKRecord {
    /// Whether `parent` was set since the record was fetched or saved (to `nil` included): a
    /// client sends a cleared parent as `null`, an untouched one not at all.
    package var parentWasChanged: Bool { state.withLock { $0.system.parentChanged } }
}
