import Foundation

/// Writes the binary record encoding between a remote container and `stratusd` (decision
/// 0018): the engine's own compact values — strings, varints, field values as record rows
/// store them, and a record as its change-log entry stores it — so that neither side
/// translates a record through another model. The envelopes around records are
/// `StratusWebServices`' (`StratusRecordEncoding`).
///
/// Dates — system dates, date fields, location timestamps — are written as Web Services JSON
/// carries them, in whole milliseconds since 1970 (``millisecondDate(_:)``), so that a remote
/// container reads the same record whichever encoding an endpoint answered in.
package struct RecordWireWriter {
    private var writer: ByteWriter

    /// A writer with room for `capacity` bytes.
    package init(capacity: Int = 256) { writer = ByteWriter(capacity: capacity) }

    /// What was written.
    package var bytes: [UInt8] { writer.bytes }

    /// One byte.
    package mutating func byte(_ value: UInt8) { writer.write(value) }
    /// A LEB128 unsigned integer.
    package mutating func varint(_ value: Int) { writer.writeVarint(value) }
    /// A length-prefixed UTF-8 string.
    package mutating func string(_ value: String) { writer.write(value) }
    /// 0, or 1 and the string.
    package mutating func optionalString(_ value: String?) { writer.write(optional: value) }
    /// Length-prefixed bytes.
    package mutating func bytes(_ value: some Collection<UInt8>) { writer.write(bytes: value) }
    /// 0, or 1 and the length-prefixed bytes.
    package mutating func optionalBytes(_ value: Data?) {
        guard let value else { return writer.write(UInt8(0)) }
        writer.write(UInt8(1))
        writer.write(bytes: value)
    }
    /// A field value as a record row stores it.
    package mutating func value(_ value: FieldValue) { FieldValueCodec.write(value, to: &writer) }

    /// A fetched record: its name, then its stored form (`StoredRecord`'s, position 0).
    package mutating func record(_ record: StoredChangedRecord) {
        writer.write(record.recordName)
        writeStored(
            type: record.recordType, changeTag: record.recordChangeTag, created: record.created,
            modified: record.modified, creator: record.creatorUserRecordName,
            modifier: record.lastModifiedUserRecordName, parent: record.storedParent, names: record.fieldNames,
            values: record.fieldValues)
    }

    /// A fetched record as the change log holds it: its name, then its stored form with its
    /// position and its dates to the stored precision (a reader rounds them, decision 0018.8).
    package mutating func record(_ raw: RawChangedRecord) {
        writer.writeRaw(raw.entry[..<raw.nameEnd])
        writer.writeRaw(raw.entry[(raw.nameEnd + 1)...])
    }

    /// A record the engine answered (a saved one): the same form as a fetched record, with the
    /// fields of `desiredKeys` (all for `nil`).
    package mutating func record(_ record: CKRecord, desiredKeys: [String]?) {
        let state = record.state.withLock { $0 }
        var fields = state.values
        if let desiredKeys {
            fields = FieldTable()
            for key in desiredKeys { if let v = state.values[key] { fields[key] = v } }
        }
        writer.write(record.recordID.recordName)
        var parent: ReferenceValue?
        if case .reference(let reference) = state.system.parent { parent = reference }
        writeStored(
            type: record.recordType, changeTag: state.system.changeTag ?? "",
            created: state.system.creationDate?.timeIntervalSinceReferenceDate ?? 0,
            modified: state.system.modificationDate?.timeIntervalSinceReferenceDate ?? 0,
            creator: state.system.creatorUserRecordName ?? "", modifier: state.system.lastModifiedUserRecordName ?? "",
            parent: parent, names: fields.keys, values: fields.values)
    }

    /// `StoredRecord.write(to:)`'s form, position 0, from the parts.
    private mutating func writeStored(
        type: String, changeTag: String, created: Double, modified: Double, creator: String, modifier: String,
        parent: ReferenceValue?, names: [String], values: [FieldValue]
    ) {
        writer.write(UInt8(1))
        writer.write(type)
        writer.write(Int64(0))
        writer.write(changeTag)
        writer.write(Self.millisecondDate(created))
        writer.write(Self.millisecondDate(modified))
        writer.write(creator)
        writer.write(modifier)
        if let parent {
            writer.write(UInt8(1))
            FieldValueCodec.write(.reference(parent), to: &writer)
        } else {
            writer.write(UInt8(0))
        }
        writer.writeVarint(names.count)
        for (name, value) in zip(names, values) {
            writer.write(name)
            FieldValueCodec.write(Self.millisecondDates(value), to: &writer)
        }
    }

    /// `seconds` since the reference date, rounded as Web Services JSON rounds a date: to whole
    /// milliseconds since 1970 (`WSRecordTranslator.milliseconds`, then back).
    package static func millisecondDate(_ seconds: Double) -> Double {
        let milliseconds = ((seconds + Date.timeIntervalBetween1970AndReferenceDate) * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 9.0e15 else { return seconds }
        return Date(timeIntervalSince1970: milliseconds / 1000).timeIntervalSinceReferenceDate
    }

    /// `value` with its dates and location timestamps rounded by ``millisecondDate(_:)``.
    static func millisecondDates(_ value: FieldValue) -> FieldValue {
        switch value {
        case .date(let date):
            return .date(Date(timeIntervalSinceReferenceDate: millisecondDate(date.timeIntervalSinceReferenceDate)))
        case .location(var location):
            location.timestamp = millisecondDate(location.timestamp)
            return .location(location)
        case .list(let items) where items.contains(where: \.holdsDate):
            return .list(items.map(millisecondDates))
        default: return value
        }
    }

    /// A record to save: its type and name, its parent (0 untouched, 1 cleared, 2 and the
    /// reference), and the fields of `keys`, each its name then 0 (cleared) or 1 and its value.
    package mutating func saveRecord(_ record: CKRecord, keys: [String]) {
        let state = record.state.withLock { $0 }
        writer.write(record.recordType)
        writer.write(record.recordID.recordName)
        if let parent = state.system.parent {
            writer.write(UInt8(2))
            FieldValueCodec.write(parent, to: &writer)
        } else {
            writer.write(UInt8(state.system.parentChanged ? 1 : 0))
        }
        writer.writeVarint(keys.count)
        for key in keys {
            writer.write(key)
            if let value = state.values[key] {
                writer.write(UInt8(1))
                FieldValueCodec.write(Self.millisecondDates(value), to: &writer)
            } else {
                writer.write(UInt8(0))
            }
        }
    }

    /// Whether any of `keys` of `record` holds an asset (the binary encoding carries none).
    package static func hasAssets(_ record: CKRecord, keys: [String]) -> Bool {
        record.state.withLock { state in keys.contains { state.values[$0]?.containsAsset ?? false } }
    }

    /// Whether a fetched record holds an asset.
    package static func hasAssets(_ record: StoredChangedRecord) -> Bool {
        record.fieldValues.contains(where: \.containsAsset)
    }

    /// Whether an answered record holds an asset among `desiredKeys` (all for `nil`).
    package static func hasAssets(_ record: CKRecord, desiredKeys: [String]?) -> Bool {
        record.state.withLock { state in
            guard let desiredKeys else { return state.values.values.contains(where: \.containsAsset) }
            return desiredKeys.contains { state.values[$0]?.containsAsset ?? false }
        }
    }
}

/// Reads what a ``RecordWireWriter`` wrote. Every read is bounds-checked and throws
/// ``RecordWireError`` on damage, so that bytes from the network can never crash a reader.
package struct RecordWireReader {
    private var reader: ByteReader
    /// Strings repeated from record to record (type, users, field names), shared.
    private var strings = StoredRecord.RepeatedStrings()

    /// A reader at the start of `bytes`.
    package init(_ bytes: [UInt8]) { reader = ByteReader(bytes) }

    /// Whether every byte was read.
    package var isAtEnd: Bool { reader.isAtEnd }

    /// One byte.
    package mutating func byte() throws(RecordWireError) -> UInt8 { try wire { try $0.readByte() } }
    /// A LEB128 unsigned integer.
    package mutating func varint() throws(RecordWireError) -> Int { try wire { try $0.readVarint() } }
    /// A length-prefixed string.
    package mutating func string() throws(RecordWireError) -> String { try wire { try $0.readString() } }
    /// 0, or 1 and a string.
    package mutating func optionalString() throws(RecordWireError) -> String? {
        try wire { try $0.readOptionalString() }
    }
    /// Length-prefixed bytes.
    package mutating func bytes() throws(RecordWireError) -> [UInt8] { try wire { try $0.readBytes() } }
    /// 0, or 1 and length-prefixed bytes.
    package mutating func optionalBytes() throws(RecordWireError) -> Data? {
        try byte() == 0 ? nil : Data(try bytes())
    }
    /// A field value as ``RecordWireWriter/value(_:)`` wrote it.
    package mutating func value() throws(RecordWireError) -> FieldValue {
        try wire { try FieldValueCodec.read(from: &$0) }
    }

    /// A fetched or answered record in `zoneID`, as the engine's `makeRecord` makes one: no
    /// changed keys.
    package mutating func record(in zoneID: CKRecordZone.ID) throws(RecordWireError) -> CKRecord {
        let name = try string()
        var strings = StoredRecord.RepeatedStrings()
        swap(&strings, &self.strings)  // uniquely referenced while read, so shared, not copied
        defer { swap(&strings, &self.strings) }
        let stored = try wire { try StoredRecord(reading: &$0, strings: &strings) }
        var state = CKRecord.State()
        // Dates as JSON carries them (0018.3): a server passing stored entries on as they are
        // (0018.8) leaves the rounding to the reader; rounding a rounded date changes nothing.
        state.values = stored.fields
        for (key, value) in stored.fields where value.containsDate {
            state.values[key] = RecordWireWriter.millisecondDates(value)
        }
        state.system = SystemFields(
            creationDate: Date(
                timeIntervalSinceReferenceDate: RecordWireWriter.millisecondDate(stored.creationDate)),
            modificationDate: Date(
                timeIntervalSinceReferenceDate: RecordWireWriter.millisecondDate(stored.modificationDate)),
            creatorUserRecordName: stored.creatorUserRecordName,
            lastModifiedUserRecordName: stored.lastModifiedUserRecordName,
            changeTag: stored.changeTag, parent: stored.parent.map { .reference($0) }, parentChanged: false)
        return CKRecord(
            recordType: stored.recordType, recordID: CKRecord.ID(recordName: name, zoneID: zoneID), state: state)
    }

    /// A record to save in `zoneID`, as ``RecordWireWriter/saveRecord(_:keys:)`` wrote it: every
    /// field sent (cleared ones included) among its changed keys, as a translated request's.
    package mutating func saveRecord(in zoneID: CKRecordZone.ID) throws(RecordWireError) -> CKRecord {
        let type = try string()
        let name = try string()
        guard !type.isEmpty else { throw RecordWireError("a record to save needs its recordType") }
        var state = CKRecord.State()
        switch try byte() {
        case 0: break
        case 1: state.system.parentChanged = true
        case 2:
            let parent = try value()
            guard case .reference = parent else { throw RecordWireError("a parent must be a reference") }
            state.system.parent = parent
            state.system.parentChanged = true
        default: throw RecordWireError("a parent's tag is not 0, 1 or 2")
        }
        let count = try varint()
        guard count <= reader.remaining else { throw RecordWireError("more fields than bytes") }
        var assignments: [(key: String, value: FieldValue?)] = []
        assignments.reserveCapacity(count)
        for _ in 0..<count {
            let key = try string()
            switch try byte() {
            case 1:
                let value = try value()
                // Assets come in JSON, with an upload receipt (decision 0018.2).
                if value.containsAsset {
                    throw RecordWireError("field '\(key)': an asset is sent in JSON with its upload receipt")
                }
                assignments.append((key, value))
            case 0: assignments.append((key, nil))
            default: throw RecordWireError("field '\(key)': a presence tag is not 0 or 1")
            }
        }
        state.values = FieldTable(assigning: assignments)
        state.changed = ChangedKeys(assignments.map(\.key))
        return CKRecord(recordType: type, recordID: CKRecord.ID(recordName: name, zoneID: zoneID), state: state)
    }

    /// `body`'s result, its engine error as a wire error.
    private mutating func wire<T>(_ body: (inout ByteReader) throws -> T) throws(RecordWireError) -> T {
        do {
            return try body(&reader)
        } catch {
            throw RecordWireError("the bytes end early or hold a malformed value at offset \(reader.offset)")
        }
    }
}

/// Bytes that are not the binary record encoding, with why.
package struct RecordWireError: Error, Sendable {
    /// What is wrong with the bytes.
    package var reason: String
    /// An error saying `reason`.
    package init(_ reason: String) { self.reason = reason }
}

extension FieldValue {
    /// Whether the value is a date or a location (whose timestamp is a date).
    fileprivate var holdsDate: Bool {
        switch self {
        case .date, .location: return true
        default: return false
        }
    }

    /// Whether the value is or lists a date or a location (whose timestamp is a date).
    fileprivate var containsDate: Bool {
        if case .list(let items) = self { return items.contains(where: \.holdsDate) }
        return holdsDate
    }
}
