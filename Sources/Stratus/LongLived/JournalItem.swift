import Foundation

/// A value an operation's journaled callbacks carry: an item ID or an item (record, zone,
/// subscription), written to and read back from the long-lived journal.
protocol JournalItem {
    /// Writes the value for the journal.
    func write(to writer: inout ByteWriter)
    /// Reads a value written by ``write(to:)``; `context` re-materializes a record's assets.
    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> Self
}

extension CKRecord.ID: JournalItem {
    func write(to writer: inout ByteWriter) { writer.write(recordID: self) }

    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> CKRecord.ID {
        try reader.readRecordID()
    }
}

extension CKRecord: JournalItem {
    func write(to writer: inout ByteWriter) { writer.write(record: self) }

    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> CKRecord {
        try reader.readRecord(materializingIn: context)
    }
}

extension CKRecordZone.ID: JournalItem {
    func write(to writer: inout ByteWriter) { writer.write(zoneID: self) }

    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> CKRecordZone.ID {
        try reader.readZoneID()
    }
}

extension CKRecordZone: JournalItem {
    func write(to writer: inout ByteWriter) { writer.write(zone: self) }

    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> CKRecordZone {
        try reader.readZone()
    }
}

/// A subscription ID (`CKSubscription.ID` is `String`).
extension String: JournalItem {
    func write(to writer: inout ByteWriter) { writer.write(self) }

    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> String {
        try reader.readString()
    }
}

/// Not `final`: a subscription read back is of the class it was saved as (query, zone or
/// database subscription), which `Self` must match.
extension CKSubscription: JournalItem {
    func write(to writer: inout ByteWriter) { writer.write(subscription: self) }

    static func read(from reader: inout ByteReader, context: DatabaseContext?) throws -> Self {
        guard let subscription = try reader.readSubscription() as? Self else { throw EngineError.corruptValue }
        return subscription
    }
}
