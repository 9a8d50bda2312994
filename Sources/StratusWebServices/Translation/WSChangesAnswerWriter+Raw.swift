import Foundation
package import Stratus

/// Change answers written straight from the change log's entry bytes (``RawZoneChangesBatch``),
/// without a `String` or a field value made for each string of each record: the record's name,
/// type, change tag, users and ASCII string fields are copied (escaped) out of the entry. The
/// bytes are those ``write(_:of:syncToken:namingZone:)`` writes for the stored batch of the same
/// read (`StoredChangeWritingTests` compares them). A record this path does not write in place
/// (a field name that is not ASCII or not after the one before) is decoded and written as a
/// stored record.
extension WSChangesAnswerWriter {
    /// Appends the record dictionaries (or tombstones) of `changes`, changes of the zone
    /// `zoneID` read without assets, after those already written since ``begin(_:)``.
    package mutating func writeChanges(_ changes: ArraySlice<RawZoneChange>, of zoneID: CKRecordZone.ID) throws {
        let zone = zoneBytes(zoneID)
        for change in changes {
            if recordsWritten > 0 { raw(",") }
            recordsWritten += 1
            switch change {
            case .changed(let record): try write(record, zone: zone)
            case .deleted(let name, let type):
                value(translator.tombstone(for: CKRecord.ID(recordName: name, zoneID: zoneID), recordType: type))
            }
        }
    }

    /// One record dictionary from its entry, in place when it can be, else decoded.
    private mutating func write(_ record: RawChangedRecord, zone: [UInt8]) throws {
        let mark = bytes.count
        if try record.withParts({ try writeInPlace($0, zone: zone) }) { return }
        bytes.removeSubrange(mark...)
        write(try record.decoded(), zone: zone)
    }

    /// The record dictionary of `parts`, in the serializer's member order; `false` (with some
    /// of it written) when a field name is not ASCII or not after the one before.
    private mutating func writeInPlace(_ parts: RawRecordParts, zone: [UInt8]) throws -> Bool {
        raw(#"{"created":"#)
        bytes.append(contentsOf: Self.changePrefix)
        integer(WSRecordTranslator.milliseconds(parts.creationDate))
        raw(#","userRecordName":"#)
        userName(parts.creatorUserRecordName)
        raw(#"},"deleted":false,"fields":{"#)
        guard try fields(of: parts) else { return false }
        raw(#"},"modified":"#)
        bytes.append(contentsOf: Self.changePrefix)
        integer(WSRecordTranslator.milliseconds(parts.modificationDate))
        raw(#","userRecordName":"#)
        userName(parts.lastModifiedUserRecordName)
        raw("}")
        if let parent = parts.parent {
            raw(#","parent":"#)
            value(translator.dictionary(for: parent))
        }
        raw(#","recordChangeTag":"#)
        string(parts.recordChangeTag)
        raw(#","recordName":"#)
        string(parts.recordName)
        raw(#","recordType":"#)
        string(parts.recordType)
        raw(#","zoneID":"#)
        bytes.append(contentsOf: zone)
        raw("}")
        return true
    }

    /// The members of a record's fields; `false` at the first name that is not ASCII or not
    /// after the one before (the stored order is by name; the general path sorts the others).
    private mutating func fields(of parts: RawRecordParts) throws -> Bool {
        var first = true
        var index = 0
        var previous = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var inOrder = true
        try parts.forEachField { name, value in
            guard inOrder else { return }
            guard Self.isASCII(name), index == 0 || previous.lexicographicallyPrecedes(name) else {
                inOrder = false
                return
            }
            previous = name
            defer { index += 1 }
            switch value {
            case .string(let string) where Self.isASCII(string):
                field(index, rawName: name, &first, Self.stringPrefix)
                JSONSerializer.writeString(utf8: string, into: &bytes)
                raw("}")
            case .string(let string):
                field(
                    index, String(decoding: name, as: UTF8.self), .string(String(decoding: string, as: UTF8.self)),
                    &first)
            case .integer(let integer, let kind):
                scalar(index, name, .integer(integer, kind), &first)
            case .date(let seconds):
                scalar(index, name, .date(Date(timeIntervalSinceReferenceDate: seconds)), &first)
            case .other(let value):
                field(index, String(decoding: name, as: UTF8.self), value, &first)
            }
        }
        return inOrder
    }

    /// An integer or date field: in place when ``field(_:_:_:_:)`` would write it directly,
    /// else through it.
    private mutating func scalar(
        _ index: Int, _ name: UnsafeBufferPointer<UInt8>, _ value: FieldValue, _ first: inout Bool
    ) {
        switch WSRecordTranslator.scalarOutput(value) {
        case .integer(let integer) where !numbersAsStrings && WSRecordTranslator.numberType(value) == nil:
            field(index, rawName: name, &first, Self.integerPrefix)
            self.integer(integer)
            raw("}")
        case .other(.timestamp, .integer(let milliseconds)):
            field(index, rawName: name, &first, Self.timestampPrefix)
            self.integer(milliseconds)
            raw("}")
        default:
            field(index, String(decoding: name, as: UTF8.self), value, &first)
        }
    }

    /// Writes `"name":` and `prefix` for a name given as its (ASCII) bytes, after a `,` unless
    /// `first`; the escaped name kept by its place, as ``field(_:_:_:_:)-(_,String,_,_)`` does.
    private mutating func field(
        _ index: Int, rawName: UnsafeBufferPointer<UInt8>, _ first: inout Bool, _ prefix: [UInt8]
    ) {
        if !first { raw(",") }
        first = false
        while index >= rawNames.count { rawNames.append(([], [])) }
        if !rawNames[index].raw.elementsEqual(rawName) {
            var escaped: [UInt8] = []
            JSONSerializer.writeString(utf8: rawName, into: &escaped)
            escaped.append(UInt8(ascii: ":"))
            rawNames[index] = (Array(rawName), escaped)
        }
        bytes.append(contentsOf: rawNames[index].escaped)
        bytes.append(contentsOf: prefix)
    }

    /// A string given as its bytes: copied when ASCII, else through a `String` (which repairs
    /// what is not UTF-8 as the decoding of a stored string does).
    private mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        if Self.isASCII(utf8) {
            JSONSerializer.writeString(utf8: utf8, into: &bytes)
        } else {
            JSONSerializer.writeString(String(decoding: utf8, as: UTF8.self), into: &bytes)
        }
    }

    /// A user's record name given as its bytes, as ``userName(_:)`` writes it.
    private mutating func userName(_ utf8: UnsafeBufferPointer<UInt8>) {
        if utf8.elementsEqual(CKCurrentUserDefaultName.utf8) {
            userName(CKCurrentUserDefaultName)
        } else {
            string(utf8)
        }
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        var index = 0
        while index + 8 <= utf8.count {
            if UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return false
            }
            index += 8
        }
        while index < utf8.count {
            if utf8[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}
