/// Where a record is: `DatabaseKeys.record(zone, name)` (decision 0008). 17 bytes: whether the
/// record is live or deleted (a tombstone), its type's number, and the position of its
/// change-log entry.
struct RecordPointer: Sendable, Equatable {
    enum State: UInt8, Sendable {
        case live = 1
        case deleted = 2
    }
    var state: State
    /// The record type's number (`RecordTypeRow.number`), so that unsorted queries can skip
    /// records of other types without reading them.
    var typeNumber: Int64
    /// The position of the record's entry in its zone's change log.
    var position: Int64

    init(state: State, typeNumber: Int64, position: Int64) {
        self.state = state
        self.typeNumber = typeNumber
        self.position = position
    }

    var isLive: Bool { state == .live }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 17)
        w.write(state.rawValue)
        w.write(typeNumber)
        w.write(position)
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard let state = State(rawValue: try r.readByte()) else { throw EngineError.corruptValue }
        self.state = state
        typeNumber = try r.readInt64()
        position = try r.readInt64()
    }
}
