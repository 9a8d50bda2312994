import Foundation

extension ModifyRequest.Save {
    /// `error` as the engine reports a conflict of this save: a `serverRecordChanged` error
    /// also carries the client's record and the ancestor (the record type and ID with the
    /// change tag the client claimed) beside the server's record, as CloudKit's does. Any
    /// other error is returned as it is.
    ///
    /// A remote container uses this on the server's per-item errors, which carry only the
    /// server record: the client's side of a conflict never travels.
    package func addingClientRecords(to error: CKError) -> CKError {
        guard error.code == .serverRecordChanged else { return error }
        var userInfo = error.userInfo
        userInfo[CKRecordChangedErrorClientRecordKey] = record
        userInfo[CKRecordChangedErrorAncestorRecordKey] = ancestor()
        return CKError(.serverRecordChanged, userInfo: userInfo)
    }

    /// The ancestor record of a conflict: this save's type and ID with the tag it claimed.
    private func ancestor() -> CKRecord {
        let ancestor = CKRecord(recordType: recordType, recordID: id)
        if let tag = system.changeTag {
            ancestor.state.withLock { $0.system.changeTag = tag }
        }
        return ancestor
    }
}
