/// What a modify operation's deprecated final block reports, gathered from its per-item
/// callbacks: the saved items, the deleted IDs, and the per-item errors that make a
/// `partialFailure`. Shared by the record, zone and subscription modify operations.
struct ModifyTally<Saved, ItemID: Hashable> {
    var saved: [Saved] = []
    var deleted: [ItemID] = []
    var partial: [AnyHashable: CKError] = [:]
    var count = 0

    /// Counts one save's outcome and returns it as the per-item blocks take it.
    mutating func save(_ id: ItemID, _ result: Result<Saved, CKError>) -> Result<Saved, any Error> {
        count += 1
        switch result {
        case .success(let item): saved.append(item)
        case .failure(let error): partial[id] = error
        }
        return result.mapError { $0 }
    }

    /// Counts one delete's outcome and returns it as the per-item blocks take it.
    mutating func delete(_ id: ItemID, _ result: Result<Void, CKError>) -> Result<Void, any Error> {
        count += 1
        switch result {
        case .success: deleted.append(id)
        case .failure(let error): partial[id] = error
        }
        return result.mapError { $0 }
    }

    /// `partialFailure` with every per-item error, or `nil` when every item succeeded.
    func partialFailure(items: String) -> CKError? {
        partial.isEmpty
            ? nil
            : .make(
                .partialFailure, "Failed to modify some \(items) (\(partial.count) of \(count))",
                userInfo: [CKPartialErrorsByItemIDKey: partial])
    }
}
