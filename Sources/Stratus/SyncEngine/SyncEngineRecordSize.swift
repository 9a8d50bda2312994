import Foundation

/// An estimate of the bytes a record's values take in a request, to keep a sync engine batch
/// under CloudKit's 2 MB: text and data by their length, numbers and dates as 8 bytes, lists
/// as their elements, asset contents not at all (they travel apart, as in CloudKit).
enum SyncEngineRecordSize {
    /// Bytes of names and system fields every record carries.
    static let overhead = 256

    /// The estimated size of `record`.
    static func estimate(_ record: CKRecord) -> Int {
        record.allKeys().reduce(overhead + record.recordID.recordName.utf8.count) { total, key in
            total + key.utf8.count + (record[key].map(size(of:)) ?? 0)
        }
    }

    private static func size(of value: Any) -> Int {
        switch value {
        case let text as String: return text.utf8.count
        case let text as NSString: return text.lengthOfBytes(using: String.Encoding.utf8.rawValue)
        case let data as Data: return data.count
        case let data as NSData: return data.length
        case let list as [Any]: return list.reduce(0) { $0 + size(of: $1) }
        case let list as NSArray: return list.reduce(0) { $0 + size(of: $1) }
        case is CKAsset: return 64
        default: return 8
        }
    }
}
