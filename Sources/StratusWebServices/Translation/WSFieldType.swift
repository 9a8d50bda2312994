/// A CloudKit Web Services field type tag (the `type` of a field dictionary, decision 0012.6).
package enum WSFieldType: String, Sendable, CaseIterable {
    /// A string.
    case string = "STRING"
    /// A 64-bit integer.
    case int64 = "INT64"
    /// A double.
    case double = "DOUBLE"
    /// Bytes, as padded base64.
    case bytes = "BYTES"
    /// A date, as integer milliseconds since 1970.
    case timestamp = "TIMESTAMP"
    /// A reference `{recordName, zoneID?, action}`.
    case reference = "REFERENCE"
    /// A location `{latitude, longitude, …}`.
    case location = "LOCATION"
    /// An asset `{fileChecksum, size, receipt, downloadURL, …}`.
    case asset = "ASSET"
    /// An input alias of ``asset``, never emitted.
    case assetID = "ASSETID"
    /// A list of strings.
    case stringList = "STRING_LIST"
    /// A list of 64-bit integers.
    case int64List = "INT64_LIST"
    /// A list of doubles.
    case doubleList = "DOUBLE_LIST"
    /// A list of byte strings.
    case bytesList = "BYTES_LIST"
    /// A list of dates.
    case timestampList = "TIMESTAMP_LIST"
    /// A list of references.
    case referenceList = "REFERENCE_LIST"
    /// A list of locations.
    case locationList = "LOCATION_LIST"
    /// A list of assets.
    case assetList = "ASSET_LIST"
    /// A list whose item type is inferred from its first item; also the tag of an empty list
    /// on output, whose item type a record does not keep.
    case list = "LIST"

    /// The item type of a typed list tag; `nil` for scalars and ``list``.
    package var itemType: WSFieldType? {
        switch self {
        case .stringList: return .string
        case .int64List: return .int64
        case .doubleList: return .double
        case .bytesList: return .bytes
        case .timestampList: return .timestamp
        case .referenceList: return .reference
        case .locationList: return .location
        case .assetList: return .asset
        default: return nil
        }
    }

    /// The list tag whose items are of this type (`INT64` → `INT64_LIST`); `nil` for list tags.
    package var listType: WSFieldType? {
        switch self {
        case .string: return .stringList
        case .int64: return .int64List
        case .double: return .doubleList
        case .bytes: return .bytesList
        case .timestamp: return .timestampList
        case .reference: return .referenceList
        case .location: return .locationList
        case .asset, .assetID: return .assetList
        default: return nil
        }
    }

    /// Whether this is a list tag (``list`` included).
    package var isList: Bool { self == .list || itemType != nil }
}
