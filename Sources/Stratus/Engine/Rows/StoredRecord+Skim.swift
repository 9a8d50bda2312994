/// Reading past a stored record without decoding it: for answers that pass a change-log
/// entry's bytes on as they are (the binary record encoding's raw path, decision 0018.8).
extension StoredRecord {
    /// Moves `r` past a record written by `write(to:)` and tells whether a field of it holds
    /// an asset. Allocates nothing; throws on damaged bytes as the decoder would.
    static func skim(_ r: inout ByteReader) throws -> Bool {
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        try r.skipCounted()  // record type
        try r.skip(8)  // position
        try r.skipCounted()  // change tag
        try r.skip(16)  // creation and modification dates
        try r.skipCounted()  // creator
        try r.skipCounted()  // last modifier
        if try r.readByte() == 1 { _ = try FieldValueCodec.skip(&r) }  // parent
        var containsAsset = false
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        for _ in 0..<count {
            try r.skipCounted()  // name
            if try FieldValueCodec.skip(&r) { containsAsset = true }
        }
        return containsAsset
    }
}

extension FieldValueCodec {
    /// Moves `r` past a value written by `write(_:to:)`; whether it holds an asset. Lists
    /// nested deeper than ``maximumListDepth`` are damaged, as for ``read(from:)``.
    static func skip(_ r: inout ByteReader, depth: Int = 0) throws -> Bool {
        switch try r.readByte() {
        case 1, 0xFF: try r.skipCounted()
        case 2, 3: try r.skip(9)
        case 4: try r.skip(8)
        case 5: try r.skipCounted()
        case 6:
            for _ in 0..<3 { try r.skipCounted() }
            try r.skip(1)
        case 7: try r.skip(64)
        case 8:
            try r.skipCounted()
            try r.skip(8)
            return true
        case 9:
            guard depth < maximumListDepth else { throw EngineError.corruptValue }
            let count = try r.readVarint()
            guard count <= r.remaining else { throw EngineError.corruptValue }
            var containsAsset = false
            for _ in 0..<count {
                if try skip(&r, depth: depth + 1) { containsAsset = true }
            }
            return containsAsset
        default: throw EngineError.corruptValue
        }
        return false
    }
}
