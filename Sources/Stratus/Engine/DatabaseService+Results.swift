import Foundation

// The seam's results made by a service other than the local engine (decision 0016): a remote
// container's service builds them from the server's answers.

extension ModifyOutcome {
    /// An outcome of `saveResults` and `deleteResults`, in request order.
    package init(
        saveResults: [(CKRecord.ID, Result<CKRecord, CKError>)], deleteResults: [(CKRecord.ID, Result<Void, CKError>)]
    ) {
        self.saveResults = saveResults
        self.deleteResults = deleteResults
    }
}
