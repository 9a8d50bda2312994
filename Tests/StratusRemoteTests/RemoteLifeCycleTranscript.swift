import Foundation
import Testing

/// The lines of a `StratusTestProbe remote-long-lived` process, read by what they say.
struct RemoteLifeCycleTranscript {
    let lines: [String]

    /// Operation IDs by tag from the lines starting with `word` (`PERSISTED`, `PROXY`).
    func ids(_ word: String) -> [String: String] {
        var ids: [String: String] = [:]
        for line in lines where line.hasPrefix(word + " ") {
            let words = line.split(separator: " ").map(String.init)
            if words.count == 3 { ids[words[1]] = words[2] }
        }
        return ids
    }

    /// The IDs listed (`LISTED <id>`).
    var listed: [String] {
        lines.filter { $0.hasPrefix("LISTED ") }.map { String($0.dropFirst("LISTED ".count)) }
    }

    /// The callback lines of the operation tagged `tag`, in the order delivered.
    func callbacks(_ tag: String) -> [String] {
        lines.filter { $0.hasPrefix(tag + " ") }
    }

    /// What a callback line says without its change tag or token: what must come in order.
    static func shape(_ line: String) -> String {
        let words = line.split(separator: " ").map(String.init)
        switch words.count > 1 ? words[1] : "" {
        case "SAVE", "CHANGED": return words.prefix(3).joined(separator: " ")
        case "TOKENS": return words.prefix(2).joined(separator: " ")
        default: return line
        }
    }

    /// Every callback of a modify saving `saves` records `m…`, in order.
    static func modifyShape(saves: Int) -> [String] {
        (0..<saves).map { "modify SAVE m\($0)" } + ["modify FINAL ok"]
    }

    /// Every callback of a one-record-per-page fetch of records `f0`…, in order: each record
    /// followed by its page's token, but the last page's token comes with the zone's result.
    static func fetchShape(records: Int) -> [String] {
        (0..<records).flatMap { ["fetch CHANGED f\($0)", "fetch TOKENS"] }.dropLast()
            + ["fetch ZONE ok false", "fetch FINAL ok"]
    }

    /// Checks that `resumed` delivered exactly the callbacks of `shape`, once each in order
    /// (no error, every token new), and that what the killed process delivered before (some
    /// callbacks, when `killedDelivered`) is where it starts.
    static func expectExactlyOnce(
        _ resumed: [String], shape expected: [String], after killed: [String], killedDelivered: Bool = false,
        _ what: String
    ) {
        let shapes = resumed.map(Self.shape)
        #expect(shapes.count == expected.count, "\(what): \(shapes.count) callbacks, \(expected.count) expected")
        if let index = zip(shapes, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("\(what): callback \(index) is '\(resumed[index])', expected '\(expected[index])'")
        }
        #expect(
            !resumed.contains { $0.contains(" error") },
            "\(what): \(resumed.filter { $0.contains(" error") }.prefix(3))")
        let tokens = resumed.filter { $0.contains(" TOKENS ") }
        #expect(Set(tokens).count == tokens.count, "\(what): a token delivered twice")
        if killedDelivered {
            #expect(!killed.isEmpty, "\(what): the killed process delivered callbacks before its kill")
        }
        #expect(Array(resumed.prefix(killed.count)) == killed, "\(what): the killed process's callbacks come first")
    }
}
