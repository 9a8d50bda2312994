public import Foundation

extension CKRecord {
    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the whole record: ID, type, system fields and every field value.
    public func encode(with coder: NSCoder) {
        encodeSystemFields(with: coder)
        var w = ByteWriter()
        let values = state.withLock { $0.values }
        w.writeVarint(values.count)
        for (name, value) in values {
            w.write(name)
            FieldValueCodec.write(value, to: &w)
        }
        coder.encode(Data(w.bytes) as NSData, forKey: "Values")
    }

    /// Archives only the record's metadata (ID, type, change tag, dates, parent), as CloudKit
    /// does for local caches. `CKRecord(coder:)` re-creates a record with no field values from
    /// it; saving that record with a changed field updates the server record.
    public func encodeSystemFields(with coder: NSCoder) {
        coder.encode(recordID, forKey: "RecordID")
        coder.encode(recordType as NSString, forKey: "RecordType")
        let system = systemFields
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(optional: system.changeTag)
        w.write(system.creationDate?.timeIntervalSinceReferenceDate ?? .nan)
        w.write(system.modificationDate?.timeIntervalSinceReferenceDate ?? .nan)
        w.write(optional: system.creatorUserRecordName)
        w.write(optional: system.lastModifiedUserRecordName)
        if let parent = system.parent {
            w.write(UInt8(1))
            FieldValueCodec.write(parent, to: &w)
        } else {
            w.write(UInt8(0))
        }
        coder.encode(Data(w.bytes) as NSData, forKey: "SystemFields")
    }

    /// Re-creates a record archived with `encode(with:)` or `encodeSystemFields(with:)`.
    public convenience init?(coder: NSCoder) {
        guard
            let recordID = coder.decodeObject(of: CKRecord.ID.self, forKey: "RecordID"),
            let recordType = coder.decodeObject(of: NSString.self, forKey: "RecordType"),
            let systemData = coder.decodeObject(of: NSData.self, forKey: "SystemFields")
        else { return nil }
        var state = State()
        do {
            var r = ByteReader(Array(systemData as Data))
            guard try r.readByte() == 1 else { return nil }
            state.system.changeTag = try r.readOptionalString()
            let created = try r.readDouble()
            let modified = try r.readDouble()
            state.system.creationDate = created.isNaN ? nil : Date(timeIntervalSinceReferenceDate: created)
            state.system.modificationDate = modified.isNaN ? nil : Date(timeIntervalSinceReferenceDate: modified)
            state.system.creatorUserRecordName = try r.readOptionalString()
            state.system.lastModifiedUserRecordName = try r.readOptionalString()
            if try r.readByte() == 1 { state.system.parent = try FieldValueCodec.read(from: &r) }
            if coder.containsValue(forKey: "Values"),
                let valuesData = coder.decodeObject(of: NSData.self, forKey: "Values")
            {
                var v = ByteReader(Array(valuesData as Data))
                let count = try v.readVarint()
                for _ in 0..<count {
                    let name = try v.readString()
                    state.values[name] = try FieldValueCodec.read(from: &v)
                }
            }
        } catch {
            return nil
        }
        self.init(recordType: recordType as String, recordID: recordID, state: state)
    }
}
