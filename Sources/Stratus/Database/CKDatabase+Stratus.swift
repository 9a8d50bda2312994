extension CKDatabase {
    /// Purges the change history of `zoneID` (a Stratus extension, not in CloudKit): tombstones
    /// are dropped and every change token issued for the zone until now fails with
    /// `changeTokenExpired`, so apps can test their recovery path. Blocks until done.
    ///
    /// On a remote container the server's engine purges (decision 0021): in the private
    /// database for the zone's owner, in the public database only with a server-to-server key;
    /// anyone else gets `permissionFailure` and nothing is purged.
    public func purgeChangeHistory(in zoneID: CKRecordZone.ID) throws {
        try service().purgeChangeHistory(zoneID)
    }
}
