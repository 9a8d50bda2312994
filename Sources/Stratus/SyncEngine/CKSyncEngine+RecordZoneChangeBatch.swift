extension CKSyncEngine {
    /// The record changes of one send: at most 400 items and about 2 MB when made from pending
    /// changes, CloudKit's limits for one request.
    public struct RecordZoneChangeBatch: Sendable {
        /// The records to save.
        public var recordsToSave: [CKRecord]
        /// The IDs of the records to delete.
        public var recordIDsToDelete: [CKRecord.ID]
        /// Whether the changes of each zone are saved all or nothing.
        public var atomicByZone: Bool

        /// The most items one batch holds.
        static let maximumItems = 400
        /// The most bytes of record values one batch holds (estimated).
        static let maximumBytes = 2 * 1024 * 1024

        /// Creates a batch of records to modify.
        public init(recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
        }

        /// Creates a batch from `pendingChanges`, in order, until it holds 400 items or the next
        /// save would take it over about 2 MB: the batch ends before that save, and nothing
        /// after it is added or asked of `recordProvider` (Apple: "until there are no more
        /// changes or the size of the batch reaches the maximum limit"). A save whose record
        /// `recordProvider` does not give is skipped. `nil` when nothing was added.
        public init?(
            pendingChanges: [CKSyncEngine.PendingRecordZoneChange],
            recordProvider: (CKRecord.ID) async -> CKRecord?
        ) async {
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            var bytes = 0
            changes: for change in pendingChanges {
                if saves.count + deletes.count >= Self.maximumItems { break }
                switch change {
                case .saveRecord(let id):
                    guard let record = await recordProvider(id) else { continue }
                    let size = SyncEngineRecordSize.estimate(record)
                    if !saves.isEmpty && bytes + size > Self.maximumBytes { break changes }
                    bytes += size
                    saves.append(record)
                case .deleteRecord(let id):
                    deletes.append(id)
                }
            }
            if saves.isEmpty && deletes.isEmpty { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes, atomicByZone: false)
        }
    }
}
