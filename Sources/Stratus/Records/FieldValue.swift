import Foundation

/// The Swift type a number was stored as, so it reads back as the same type.
package enum NumberKind: UInt8, Sendable {
    case int = 0
    case int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, double, float,
        bool, nsnumber
}

/// A location as stored.
package struct LocationValue: Hashable, Sendable {
    package var latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, speed: Double
    package var timestamp: Double
}

/// A reference as stored: the target's name (the zone is the record's own) and the action.
package struct ReferenceValue: Hashable, Sendable {
    package var recordName: String
    package var zoneName: String
    package var ownerName: String
    package var action: UInt8
}

/// An asset as stored: the ID of its content in the store, and its size. A value about to be
/// saved carries the local file instead.
package struct AssetValue: Hashable, Sendable {
    package var contentID: String
    package var size: Int64
    package var pendingFile: URL?
    /// Whether the asset may only adopt staged content, once (an upload receipt's asset,
    /// ``CKAsset/init(stagedContentID:size:)``): a save refuses it when the content is no
    /// longer staged instead of copying it, so that one upload cannot be multiplied. Never
    /// stored.
    package var stagedOnly = false
}

/// A record field's value in the engine's own terms: the CloudKit value types.
///
/// The common cases are stored inline (a value is at most a `String` or a `Data` and a tag);
/// the large, rarer ones are boxed, so that a record's fields need no allocation per value.
package enum FieldValue: Hashable, Sendable {
    case string(String)
    case integer(Int64, NumberKind)
    case double(Double, NumberKind)
    case date(Date)
    case bytes(Data)
    indirect case reference(ReferenceValue)
    indirect case location(LocationValue)
    indirect case asset(AssetValue)
    case list([FieldValue])
    /// A value CloudKit cannot store, with why (`unstorableDescription(of:)`); a save rejects it.
    case invalid(String)

    /// The CloudKit schema type, for the just-in-time schema (numbers share one type).
    var schemaType: SchemaType {
        switch self {
        case .string: return .string
        case .integer, .double: return .number
        case .date: return .timestamp
        case .bytes: return .bytes
        case .reference: return .reference
        case .location: return .location
        case .asset: return .asset
        case .list(let items):
            return SchemaType(listOf: items.first?.schemaType)
        case .invalid: return .invalid
        }
    }

    /// The size it counts toward the 1 MB record limit (assets do not count).
    var storageSize: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .integer, .double, .date: return 8
        case .bytes(let d): return d.count
        case .reference(let r): return r.recordName.utf8.count + 8
        case .location: return 64
        case .asset: return 0
        case .list(let items): return items.reduce(0) { $0 + $1.storageSize }
        case .invalid: return 0
        }
    }
}

/// CloudKit's field types: the just-in-time schema fixes a field's type on its first save.
enum SchemaType: UInt8, Sendable {
    case string = 1
    case number, timestamp, bytes, reference, location, asset
    case stringList = 0x11
    case numberList, timestampList, bytesList, referenceList, locationList, assetList
    case emptyList = 0x20
    case invalid = 0xFF

    init(listOf element: SchemaType?) {
        guard let element else {
            self = .emptyList
            return
        }
        self = SchemaType(rawValue: element.rawValue | 0x10) ?? .emptyList
    }

    var name: String {
        switch self {
        case .string: return "STRING"
        case .number: return "NUMBER"
        case .timestamp: return "TIMESTAMP"
        case .bytes: return "BYTES"
        case .reference: return "REFERENCE"
        case .location: return "LOCATION"
        case .asset: return "ASSET"
        case .stringList: return "LIST<STRING>"
        case .numberList: return "LIST<NUMBER>"
        case .timestampList: return "LIST<TIMESTAMP>"
        case .bytesList: return "LIST<BYTES>"
        case .referenceList: return "LIST<REFERENCE>"
        case .locationList: return "LIST<LOCATION>"
        case .assetList: return "LIST<ASSET>"
        case .emptyList: return "LIST"
        case .invalid: return "INVALID"
        }
    }

    var isList: Bool { rawValue >= 0x10 && rawValue <= 0x20 }

    /// Whether a value of type `other` may be stored in a field of this type.
    func accepts(_ other: SchemaType) -> Bool {
        if self == other { return true }
        if isList && other == .emptyList { return true }
        return false
    }
}
