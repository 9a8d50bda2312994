import Foundation
package import Stratus

/// Writes a change answer (`records/changes`, `changes/zone`) straight into bytes, each record
/// from its stored change-log entry (``StoredChangedRecord``), without a `CKRecord`: the bytes
/// ``WSRecordTranslator/write(_:numbersAsStrings:desiredKeys:into:)`` writes for the `CKRecord`
/// of the same fetch, with what repeats from record to record — the members' names, the
/// device ID, the zone, the field names — copied as prepared bytes instead of being written
/// piece by piece. `StoredChangeWritingTests` compares the two.
package struct WSChangesAnswerWriter {
    /// What was written.
    package internal(set) var bytes: [UInt8] = []
    let translator: WSRecordTranslator
    let numbersAsStrings: Bool
    /// Field names as last escaped, by their place in the record (names repeat from record to
    /// record of a batch, sharing their storage).
    private var names: [(name: String, escaped: [UInt8])] = []
    /// Field names met as stored bytes (``RawRecordParts``) and as last escaped, by their place
    /// in the record.
    var rawNames: [(raw: [UInt8], escaped: [UInt8])] = []
    /// The zone dictionary last written, and for which zone.
    private var zone: (id: CKRecordZone.ID, bytes: [UInt8])?
    /// Records written since ``begin(_:)``: a `,` goes before every one but the first.
    var recordsWritten = 0

    /// A writer of answers for `translator`'s caller; `capacity` bytes reserved.
    package init(translator: WSRecordTranslator, numbersAsStrings: Bool, capacity: Int) {
        self.translator = translator
        self.numbersAsStrings = numbersAsStrings
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text`, JSON that needs no escaping (the answer's own punctuation and keys).
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` as the serializer writes it.
    package mutating func value(_ value: JSONValue) {
        JSONSerializer.write(value, into: &bytes)
    }

    /// Writes `{clientChangeTokenData, moreComing, records, syncToken, zoneID}` of a batch of the
    /// zone `zoneID`, without `zoneID` unless `namingZone` and without `clientChangeTokenData`
    /// unless a modify of the zone carried one (Stratus's addition, decision 0016.2, base64);
    /// `syncToken` is the token's text.
    package mutating func write(
        _ batch: StoredZoneChangesBatch, of zoneID: CKRecordZone.ID, syncToken: String, namingZone: Bool
    ) {
        begin(batch)
        writeChanges(batch.changes[...], of: zoneID)
        end(of: zoneID, syncToken: syncToken, namingZone: namingZone)
    }

    /// Writes a batch's answer up to its first record: `{`, `clientChangeTokenData` when the
    /// batch has one, `moreComing`, and `"records":[`. The records follow
    /// (``writeChanges(_:of:)``, in as many pieces as the caller likes), then ``end(of:syncToken:namingZone:)``.
    package mutating func begin<Change>(_ batch: ZoneChangesPage<Change>) {
        raw("{")
        if let data = batch.clientChangeTokenData {
            raw(#""clientChangeTokenData":"#)
            JSONSerializer.writeString(data.base64EncodedString(), into: &bytes)
            raw(",")
        }
        raw(#""moreComing":"#)
        batch.moreComing ? raw("true") : raw("false")
        raw(#","records":["#)
        recordsWritten = 0
    }

    /// Appends the record dictionaries (or tombstones) of `changes`, changes of the zone
    /// `zoneID`, after those already written since ``begin(_:)``.
    package mutating func writeChanges(_ changes: ArraySlice<StoredZoneChange>, of zoneID: CKRecordZone.ID) {
        let zone = zoneBytes(zoneID)
        for change in changes {
            if recordsWritten > 0 { raw(",") }
            recordsWritten += 1
            switch change {
            case .changed(let record): write(record, zone: zone)
            case .deleted(let name, let type):
                value(translator.tombstone(for: CKRecord.ID(recordName: name, zoneID: zoneID), recordType: type))
            }
        }
    }

    /// Closes the answer ``begin(_:)`` opened: the records' `]`, `syncToken`, and `zoneID` when
    /// `namingZone`.
    package mutating func end(of zoneID: CKRecordZone.ID, syncToken: String, namingZone: Bool) {
        raw(#"],"syncToken":"#)
        JSONSerializer.writeString(syncToken, into: &bytes)
        if namingZone {
            raw(#","zoneID":"#)
            bytes.append(contentsOf: zoneBytes(zoneID))
        }
        raw("}")
    }

    /// Empties ``bytes``, keeping its capacity: for an answer sent in pieces, each piece being
    /// ``bytes`` as written since the last call.
    package mutating func removeAllBytes() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// The zone dictionary of `zoneID` as the translator writes it, written once per zone.
    mutating func zoneBytes(_ zoneID: CKRecordZone.ID) -> [UInt8] {
        if let zone, zone.id == zoneID { return zone.bytes }
        var zoneWriter = JSONWriter(capacity: 64)
        translator.write(zoneID, into: &zoneWriter)
        zone = (zoneID, zoneWriter.bytes)
        return zoneWriter.bytes
    }
}

extension WSChangesAnswerWriter {
    /// One record dictionary, in the serializer's member order.
    mutating func write(_ record: StoredChangedRecord, zone: [UInt8]) {
        raw(#"{"created":"#)
        bytes.append(contentsOf: Self.changePrefix)
        integer(WSRecordTranslator.milliseconds(record.creationDate))
        raw(#","userRecordName":"#)
        userName(record.creatorUserRecordName)
        raw(#"},"deleted":false,"fields":{"#)
        fields(record.fieldNames, record.fieldValues)
        raw(#"},"modified":"#)
        bytes.append(contentsOf: Self.changePrefix)
        integer(WSRecordTranslator.milliseconds(record.modificationDate))
        raw(#","userRecordName":"#)
        userName(record.lastModifiedUserRecordName)
        raw("}")
        if let parent = record.parent {
            raw(#","parent":"#)
            value(translator.dictionary(for: parent))
        }
        raw(#","recordChangeTag":"#)
        JSONSerializer.writeString(record.recordChangeTag, into: &bytes)
        raw(#","recordName":"#)
        JSONSerializer.writeString(record.recordName, into: &bytes)
        raw(#","recordType":"#)
        JSONSerializer.writeString(record.recordType, into: &bytes)
        raw(#","zoneID":"#)
        bytes.append(contentsOf: zone)
        raw("}")
    }

    /// A user's record name as the caller sees it (its own for `__defaultOwner__`).
    mutating func userName(_ name: String) {
        let shown = name == CKCurrentUserDefaultName ? (translator.callerRecordName ?? name) : name
        JSONSerializer.writeString(shown, into: &bytes)
    }

    /// The members of a record's fields: strings, integers and dates directly, the rest as the
    /// translator writes them (``WSRecordTranslator/writeStoredFields(_:_:numbersAsStrings:_:into:)``,
    /// which also takes names that are out of order).
    private mutating func fields(_ names: [String], _ values: [FieldValue]) {
        guard zip(names, names.dropFirst()).allSatisfy({ $0 < $1 }) else {
            var out = JSONWriter()
            out.object {
                translator.writeStoredFields(names, values, numbersAsStrings: numbersAsStrings, nil, into: &$0)
            }
            bytes.append(contentsOf: out.bytes[1..<out.bytes.count - 1])
            return
        }
        var first = true
        for (index, (name, value)) in zip(names, values).enumerated() {
            field(index, name, value, &first)
        }
    }

    /// One member of a record's fields, after a `,` unless `first`: strings, integers and dates
    /// directly, the rest as the translator writes them; nothing for a value the translator
    /// leaves out.
    mutating func field(_ index: Int, _ name: String, _ value: FieldValue, _ first: inout Bool) {
        switch WSRecordTranslator.scalarOutput(value) {
        case .other(.string, .string(let string)):
            field(index, name, &first, Self.stringPrefix)
            JSONSerializer.writeString(string, into: &bytes)
        case .integer(let integer) where !numbersAsStrings && WSRecordTranslator.numberType(value) == nil:
            field(index, name, &first, Self.integerPrefix)
            self.integer(integer)
        case .other(.timestamp, .integer(let milliseconds)):
            field(index, name, &first, Self.timestampPrefix)
            self.integer(milliseconds)
        default:
            // `{"name":{…}}`, or `{}` for a value the translator leaves out.
            var out = JSONWriter()
            out.object { translator.writeStoredField(name, value, numbersAsStrings: numbersAsStrings, into: &$0) }
            guard out.bytes.count > 2 else { return }
            if !first { raw(",") }
            first = false
            bytes.append(contentsOf: out.bytes[1..<out.bytes.count - 1])
            return
        }
        raw("}")
    }

    /// Writes `"name":` and `prefix` (`{"type":…,"value":`), after a `,` unless `first`.
    mutating func field(_ index: Int, _ name: String, _ first: inout Bool, _ prefix: [UInt8]) {
        if !first { raw(",") }
        first = false
        while index >= names.count { names.append(("", [])) }
        if names[index].name != name {
            var escaped: [UInt8] = []
            JSONSerializer.writeString(name, into: &escaped)
            escaped.append(UInt8(ascii: ":"))
            names[index] = (name, escaped)
        }
        bytes.append(contentsOf: names[index].escaped)
        bytes.append(contentsOf: prefix)
    }

    /// `{"type":"STRING","value":` and the like: a field's value up to the value itself.
    private static func prefix(_ type: WSFieldType) -> [UInt8] {
        var bytes = Array(#"{"type":"#.utf8)
        JSONSerializer.writeString(type.rawValue, into: &bytes)
        return bytes + Array(#","value":"#.utf8)
    }

    static let stringPrefix = prefix(.string)
    static let integerPrefix = prefix(.int64)
    static let timestampPrefix = prefix(.timestamp)

    /// `{"deviceID":"stratusd","timestamp":` of `created` and `modified`.
    static let changePrefix: [UInt8] = {
        var bytes = Array(#"{"deviceID":"#.utf8)
        JSONSerializer.writeString(WSRecordTranslator.deviceID, into: &bytes)
        return bytes + Array(#","timestamp":"#.utf8)
    }()

    /// Writes an integer as ``JSONWriter/integer(_:)`` does.
    mutating func integer(_ integer: Int64) {
        JSONWriter.writeInteger(integer, into: &bytes)
    }
}
