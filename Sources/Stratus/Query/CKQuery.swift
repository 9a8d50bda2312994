public import Foundation
import StratusPredicate

/// A query: a record type, a predicate from CloudKit's subset, and sort descriptors.
public final class CKQuery: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The type of the records to match.
    public let recordType: CKRecord.RecordType
    /// Which records match. Use `NSPredicate(format:)` or `NSPredicate(value: true)`.
    public let predicate: NSPredicate
    /// How to order the results; `nil` leaves the order to the store.
    public var sortDescriptors: [NSSortDescriptor]?

    /// A query for records of `recordType` matching `predicate`.
    public init(recordType: CKRecord.RecordType, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
    }

    public override var description: String {
        "<CKQuery: recordType=\(recordType), predicate=\(predicate.stratusPredicateFormat)>"
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(recordType as NSString, forKey: "RecordType")
        coder.encode(predicate.stratusPredicateFormat as NSString, forKey: "Predicate")
        let keys = (sortDescriptors ?? []).compactMap(\.stratusSortKey)
        coder.encode(keys.map { $0.key } as NSArray, forKey: "SortKeys")
        coder.encode(keys.map { NSNumber(value: $0.ascending) } as NSArray, forKey: "SortAscending")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard
            let recordType = coder.decodeObject(of: NSString.self, forKey: "RecordType"),
            let format = coder.decodeObject(of: NSString.self, forKey: "Predicate")
        else { return nil }
        self.recordType = recordType as String
        self.predicate = NSPredicate(format: format as String, argumentArray: nil)
        let keys = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "SortKeys") as? [String] ?? []
        let ascending =
            coder.decodeObject(of: [NSArray.self, NSNumber.self], forKey: "SortAscending") as? [NSNumber] ?? []
        if !keys.isEmpty {
            self.sortDescriptors = zip(keys, ascending).map { NSSortDescriptor(key: $0, ascending: $1.boolValue) }
        }
    }

    /// The sort keys, validated: every descriptor must name a key.
    func sortKeys() throws -> [SortKey] {
        let descriptors = sortDescriptors ?? []
        if descriptors.count > Validation.maximumSortDescriptors {
            throw CKError.make(
                .limitExceeded,
                "the query has \(descriptors.count) sort descriptors; the limit is \(Validation.maximumSortDescriptors)"
            )
        }
        return try descriptors.map { descriptor in
            if let location = descriptor as? CKLocationSortDescriptor { return location.sortKey }
            guard let key = descriptor.stratusSortKey else {
                throw CKError.make(
                    .invalidArguments, "sort descriptors must be made with NSSortDescriptor(key:ascending:)")
            }
            return key
        }
    }
}

extension CKQuery {
    /// A new query with the same record type, predicate and sort descriptors; changing the
    /// copy's sort descriptors leaves this query as it is.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKQuery(recordType: recordType, predicate: predicate)
        copy.sortDescriptors = sortDescriptors
        return copy
    }
}
