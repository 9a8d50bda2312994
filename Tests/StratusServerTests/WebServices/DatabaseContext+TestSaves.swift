import Stratus

extension DatabaseContext {
    /// Creates `records` and force-deletes `deletes` in one atomic modify; throws the first
    /// item's error.
    func createAndDelete(_ records: [CKRecord], deleting deletes: [CKRecord.ID]) throws {
        let outcome = try modifyRecords(
            ModifyRequest(
                saves: records.map { ($0, SaveMode.create) }, deletes: deletes.map { ($0, DeleteMode.force) },
                atomic: true, clientChangeTokenData: nil))
        for (_, result) in outcome.saveResults { _ = try result.get() }
        for (_, result) in outcome.deleteResults { _ = try result.get() }
    }
}
