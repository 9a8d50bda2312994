import Foundation

/// A record's server-maintained metadata.
struct SystemFields: Sendable, Hashable {
    var creationDate: Date?
    var modificationDate: Date?
    var creatorUserRecordName: String?
    var lastModifiedUserRecordName: String?
    var changeTag: String?
    var parent: FieldValue?
    var parentChanged = false
}
