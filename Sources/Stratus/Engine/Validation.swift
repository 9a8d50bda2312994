import Foundation

/// CloudKit's naming and size rules, each problem described with the bad value named.
package enum Validation {
    /// The most items one modify request may carry.
    static let maximumItemsPerRequest = 400
    /// The most bytes of field data (assets excluded) one record may hold.
    static let maximumRecordSize = 1_000_000
    /// The longest record, zone or field name.
    static let maximumNameLength = 255
    /// The most field names one fetch, query or change fetch may list in `desiredKeys`
    /// (decision 0005): each is looked up in every record answered.
    package static let maximumDesiredKeys = 1_000
    /// The most sort descriptors one query may have (decision 0005): each is a value held
    /// and compared for every candidate record.
    package static let maximumSortDescriptors = 8
    /// The most bytes of a modify's `clientChangeTokenData`: it is kept in the zone's row,
    /// which every request in the zone reads (Apple documents no limit; a token of an app is
    /// a few bytes to a few hundred).
    package static let maximumClientChangeTokenBytes = 16 << 10

    /// Refuses `clientChangeTokenData` longer than ``maximumClientChangeTokenBytes``
    /// (`limitExceeded`).
    static func checkClientChangeToken(_ data: Data?) throws(CKError) {
        guard let data, data.count > maximumClientChangeTokenBytes else { return }
        throw CKError.make(
            .limitExceeded,
            "clientChangeTokenData holds \(data.count) bytes; the limit is \(maximumClientChangeTokenBytes)")
    }

    /// Refuses a request of more than ``maximumItemsPerRequest`` items, duplicates included
    /// (`limitExceeded`): the limit is on the request's size.
    package static func checkItemCount(_ count: Int) throws(CKError) {
        guard count > maximumItemsPerRequest else { return }
        throw CKError.make(
            .limitExceeded,
            "Your request contains \(count) items which is more than the maximum number of items in a single request (\(maximumItemsPerRequest))"
        )
    }

    /// Refuses a `desiredKeys` list longer than ``maximumDesiredKeys`` (`limitExceeded`).
    static func checkDesiredKeys(_ keys: [String]?) throws(CKError) {
        guard let keys, keys.count > maximumDesiredKeys else { return }
        throw CKError.make(
            .limitExceeded,
            "desiredKeys lists \(keys.count) fields; the limit is \(maximumDesiredKeys) (nil fetches every field)")
    }

    static func recordNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "record name must not be empty" }
        if name.utf8.count > maximumNameLength {
            return "record name '\(name.prefix(40))…' is \(name.utf8.count) characters long; the limit is 255"
        }
        if !isASCII(name) { return "record name '\(name)' must contain only ASCII characters" }
        if name.utf8.first == UInt8(ascii: "_") { return "record name '\(name)' must not begin with an underscore" }
        return nil
    }

    static func zoneNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "zone name must not be empty" }
        if name.utf8.count > maximumNameLength {
            return "zone name '\(name.prefix(40))…' is \(name.utf8.count) characters long; the limit is 255"
        }
        if !isASCII(name) { return "zone name '\(name)' must contain only ASCII characters" }
        return nil
    }

    static func recordTypeProblem(_ name: String) -> String? {
        if name.isEmpty { return "record type must not be empty" }
        if name.utf8.count > maximumNameLength {
            return "record type '\(name.prefix(40))…' is longer than 255 characters"
        }
        if name.utf8.first == UInt8(ascii: "_") {
            return "record type '\(name)' must not begin with an underscore (reserved for system types)"
        }
        guard isIdentifier(name) else {
            return
                "record type '\(name)' must start with an ASCII letter and contain only ASCII letters, digits and underscores"
        }
        return nil
    }

    static func fieldNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "field name must not be empty" }
        if name.utf8.first == UInt8(ascii: "_") {
            return "field name '\(name)' must not begin with an underscore (reserved for system fields)"
        }
        if name.utf8.count > maximumNameLength {
            return "field name '\(name.prefix(40))…' is \(name.utf8.count) characters long; the limit is 255"
        }
        guard isIdentifier(name) else {
            return
                "field name '\(name)' must start with an ASCII letter and contain only ASCII letters, digits and underscores"
        }
        return nil
    }
}

extension Validation {
    /// Whether every character of `name` is ASCII, judged over its UTF-8 bytes (a character is
    /// ASCII exactly when all its bytes are).
    static func isASCII(_ name: String) -> Bool {
        // Over the contiguous bytes (a small string's too): iterating `utf8` costs about
        // ten times as many instructions per byte.
        if let ascii = name.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy { $0 < 0x80 } }) {
            return ascii
        }
        return name.utf8.allSatisfy { $0 < 0x80 }
    }

    /// Whether `name` starts with an ASCII letter and holds only ASCII letters, digits and
    /// underscores, judged over its UTF-8 bytes (any non-ASCII scalar has bytes ≥ 0x80).
    static func isIdentifier(_ name: String) -> Bool {
        name.utf8.withContiguousStorageIfAvailable(isIdentifier) ?? isIdentifier(name.utf8)
    }

    private static func isIdentifier<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var first = true
        for byte in bytes {
            let letter = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
            if first {
                guard letter else { return false }
                first = false
            } else if !(letter || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F) {
                return false
            }
        }
        return !first
    }
}
