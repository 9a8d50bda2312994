/// What a fetch's database changes leave of the zones they name, read batch by batch: the
/// zones deleted at some point, whose token and unfetched mark are forgotten, and the zones
/// that exist after the last batch, which are fetched (from a `nil` token when also deleted).
///
/// The change log keeps one entry per zone's life, moved to the end at each change: a zone
/// deleted and made again is reported deleted and changed; made and deleted, deleted only;
/// deleted, made again and deleted again, deleted twice. A batch is read at one moment, and a
/// zone it reports changed existed then, after any deletion it reports. So a batch's
/// deletions apply before its modifications, and each batch after the one before it.
struct SyncEngineZoneFates {
    /// Zones reported deleted by any batch.
    private(set) var deleted: Set<CKRecordZone.ID> = []
    /// Zones reported changed, in the order first reported.
    private var changed: [CKRecordZone.ID] = []
    /// The zones of `changed`, to find them at once.
    private var reported: Set<CKRecordZone.ID> = []
    /// The zones of `changed` that no later deletion removed.
    private var live: Set<CKRecordZone.ID> = []

    /// The zones that exist after the batches read so far, in the order first reported.
    var existing: [CKRecordZone.ID] { changed.filter(live.contains) }

    /// Takes in the next batch's zone changes: its deletions, then its modifications.
    mutating func add(
        modifications: [CKDatabase.DatabaseChange.Modification], deletions: [CKDatabase.DatabaseChange.Deletion]
    ) {
        for zoneID in deletions.map(\.zoneID) {
            deleted.insert(zoneID)
            live.remove(zoneID)
        }
        for zoneID in modifications.map(\.zoneID) {
            live.insert(zoneID)
            if reported.insert(zoneID).inserted { changed.append(zoneID) }
        }
    }
}
