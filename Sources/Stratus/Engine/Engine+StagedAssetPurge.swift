import Foundation
import StratusBackend

extension Engine {
    /// Removes staged asset content that no record adopted and that was staged before `cutoff`
    /// (stratusd passes now − 24 h, decision 0012.8), in every database of the store, at most
    /// `limit` queue entries per transaction; returns how many contents were removed.
    ///
    /// Content a save adopted meanwhile has no marker any more and stays. A purge racing a
    /// save that adopts the same content conflicts with it in the store, and one of them runs
    /// again.
    package func purgeStagedAssets(stagedBefore cutoff: Date, limit: Int = 256) throws -> Int {
        let end = OrderedKey([StoreLayout.stagedAssetTag]).appending(StagedAssetID.milliseconds(cutoff)).bytes
        let range = KeyRange(from: [StoreLayout.stagedAssetTag], to: end)
        var removed = 0
        while true {
            let (entries, purged) = try writeLeavingGeneration { txn in
                try purgeBatch(txn.scan(range, limit: limit), txn)
            }
            removed += purged
            if entries < limit { return removed }
        }
    }

    /// Clears one batch of queue entries and the staged content they name; returns how many
    /// entries were seen and how many contents removed.
    private func purgeBatch(_ entries: [KeyValuePair], _ txn: any BackendWriteTransaction) throws -> (Int, Int) {
        var purged = 0
        for entry in entries {
            var reader = OrderedKeyReader(entry.key, from: 1)
            _ = try reader.readInteger()
            let number = try reader.readInteger()
            let scope = try reader.readInteger()
            let contentID = try reader.readString()
            let keys = DatabaseKeys(containerNumber: number, scope: scope)
            if try txn.get(keys.stagedAsset(contentID)) != nil {
                try txn.clear(keys.stagedAsset(contentID))
                try AssetParts(keys: keys).remove(contentID, txn)
                purged += 1
            }
            try txn.clear(entry.key)
        }
        return (entries.count, purged)
    }
}
