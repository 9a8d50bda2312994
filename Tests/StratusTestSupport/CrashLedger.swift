import Foundation
public import Stratus

/// The writer's acknowledged history, as its output lines tell it.
public struct CrashLedger: Sendable {
    /// `BEGIN` payload (as `CrashWriterCommand.Begin`).
    struct Begin: Decodable {
        var saves: [String: [String: String]]
        var deletes: [String]
    }

    /// `ACK` payload (as `CrashWriterCommand.Ack`).
    struct Ack: Decodable {
        var saved: [String: String]
        var deleted: [String]
    }

    /// The batch announced and not (yet) acknowledged.
    public struct Pending: Sendable {
        /// The batch number.
        public var number: Int64
        /// Each saved record's complete fields after the batch, encoded as `RecordSnapshot` does.
        public var saves: [String: [String: String]]
        /// The records deleted.
        public var deletes: [String]
    }

    /// A token the writer printed, and the acknowledged state when it printed it.
    public struct TokenEntry: Sendable {
        /// The token.
        public var token: CKServerChangeToken
        /// The acknowledged state when it was printed.
        public var state: [String: RecordSnapshot]
        /// The round it was printed in.
        public var round: Int
    }

    /// The zone as the acknowledged batches left it.
    public var acknowledged: [String: RecordSnapshot] = [:]
    /// The number of the last acknowledged (or found committed) batch.
    public var lastAcknowledged: Int64 = 0
    /// The batch in flight, if any.
    public var pending: Pending?
    /// Every token printed so far.
    public var tokens: [TokenEntry] = []
    /// Everything wrong so far.
    public var problems: [String] = []
    /// Batches announced, and acknowledged.
    public var batchesBegun = 0, batchesAcknowledged = 0

    /// An empty ledger.
    public init() {}

    /// Takes one complete output line of the writer.
    public mutating func consume(_ line: String, round: Int) {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        let decoder = JSONDecoder()
        switch (parts.first, parts.count) {
        case ("BEGIN", 3):
            guard let number = Int64(parts[1]), let begin = try? decoder.decode(Begin.self, from: Data(parts[2].utf8))
            else {
                problems.append("round \(round): unreadable line \(line.prefix(200))")
                return
            }
            if let pending {
                problems.append(
                    "round \(round): batch \(number) begun while batch \(pending.number) was not acknowledged")
            }
            if number != lastAcknowledged + 1 {
                problems.append("round \(round): batch \(number) begun after batch \(lastAcknowledged)")
            }
            batchesBegun += 1
            pending = Pending(number: number, saves: begin.saves, deletes: begin.deletes)
        case ("ACK", 3):
            guard let number = Int64(parts[1]), let ack = try? decoder.decode(Ack.self, from: Data(parts[2].utf8))
            else {
                problems.append("round \(round): unreadable line \(line.prefix(200))")
                return
            }
            guard let begun = pending, begun.number == number else {
                problems.append("round \(round): ACK \(number) without its BEGIN")
                return
            }
            if Set(ack.saved.keys) != Set(begun.saves.keys) || Set(ack.deleted) != Set(begun.deletes) {
                problems.append("round \(round): ACK \(number) does not match its BEGIN")
            }
            for (name, tag) in ack.saved {
                acknowledged[name] = RecordSnapshot(changeTag: tag, fields: begun.saves[name] ?? [:])
            }
            for name in ack.deleted { acknowledged[name] = nil }
            lastAcknowledged = number
            batchesAcknowledged += 1
            pending = nil
        case ("TOKEN", 3):
            guard let archive = Data(base64Encoded: parts[1]),
                let token = try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: archive),
                let tags = try? decoder.decode([String: String].self, from: Data(parts[2].utf8))
            else {
                problems.append("round \(round): unreadable line \(line.prefix(200))")
                return
            }
            if pending != nil {
                problems.append("round \(round): a token printed while a batch was in flight")
            }
            // The writer's mirror, built by its own change fetches, must be what was
            // acknowledged.
            if tags != acknowledged.mapValues(\.changeTag) {
                problems.append(
                    "round \(round): the writer's change-fetch mirror differs from the acknowledged state: "
                        + "\(RecordSnapshot.differences(Self.tagsOnly(tags), expected: Self.tagsOnly(acknowledged.mapValues(\.changeTag))))"
                )
            }
            tokens.append(TokenEntry(token: token, state: acknowledged, round: round))
        default:
            problems.append("round \(round): unexpected line \(line.prefix(200))")
        }
    }

    /// Snapshots with `tags` and no fields, to compare change tags alone.
    public static func tagsOnly(_ tags: [String: String]) -> [String: RecordSnapshot] {
        tags.mapValues { RecordSnapshot(changeTag: $0, fields: [:]) }
    }

    /// Takes the store's state after a kill as the acknowledged state (it was checked to be
    /// the acknowledged state, or it plus the batch in flight).
    public mutating func adopt(_ store: [String: RecordSnapshot]) {
        acknowledged = store
        lastAcknowledged = store.values.compactMap { Int64($0.fields["batch"]?.dropFirst(2) ?? "") }.max() ?? 0
        pending = nil
    }
}
