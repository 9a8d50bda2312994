extension CKDatabase {
    /// Purges the change history of `zoneID` (a Stratus extension, not in CloudKit): tombstones
    /// are dropped and every change token issued for the zone until now fails with
    /// `changeTokenExpired`, so apps can test their recovery path. Blocks until done.
    public func purgeChangeHistory(in zoneID: CKRecordZone.ID) throws {
        try localContext(for: "purging change history").purgeChangeHistory(zoneID)
    }
}
