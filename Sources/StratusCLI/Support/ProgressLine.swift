import Foundation

/// One status line on standard error, redrawn in place: the progress display of long
/// commands (`conformance`, `import`, `export`) when standard error is a terminal.
enum ProgressLine {
    /// Replaces the line with `text` (at most 120 characters).
    static func draw(_ text: String) {
        // \r returns to the start of the line; ESC[K clears what a longer line left.
        Output.status("\r" + text.prefix(120) + "\u{1B}[K")
    }

    /// Clears the line.
    static func clear() {
        Output.status("\r\u{1B}[K")
    }

    /// A bar of `width` characters, `[####......]`, filled to `fraction` (0 to 1).
    static func bar(_ fraction: Double, width: Int = 30) -> String {
        let filled = min(width, max(0, Int(fraction * Double(width) + 1e-9)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }
}

/// Progress of an import or an export on standard error: a line redrawn in place on a
/// terminal, at most five times a second, and cleared at the end; nothing when standard error
/// is not a terminal.
final class TransferProgress: @unchecked Sendable {
    private let verb: String
    private let enabled: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var nextDraw: ContinuousClock.Instant
    private var drawn = false

    /// Progress of records `verb` (`imported`, `exported`), shown when `enabled`.
    init(verb: String, enabled: Bool = Output.standardErrorIsTerminal) {
        self.verb = verb
        self.enabled = enabled
        start = clock.now
        nextDraw = start
    }

    /// The seconds since the command started.
    var seconds: Double { (clock.now - start).seconds }

    /// Shows `records` done, and `fraction` of the input when it is known.
    func update(records: Int, fraction: Double? = nil) {
        guard enabled, clock.now >= nextDraw else { return }
        nextDraw = clock.now + .milliseconds(200)
        drawn = true
        ProgressLine.draw(Self.text(verb: verb, records: records, seconds: seconds, fraction: fraction))
    }

    /// Clears the line, if one was drawn.
    func finish() {
        if drawn { ProgressLine.clear() }
    }

    /// `[#####.....]  42%  126,000 records imported  31,500/s`; without the bar and
    /// percentage when `fraction` is unknown.
    static func text(verb: String, records: Int, seconds: Double, fraction: Double?) -> String {
        var text = "\(TransferSummary.grouped(records)) records \(verb)  \(TransferSummary.rate(records, seconds))/s"
        if let fraction {
            let percent = String(Int((min(1, max(0, fraction)) * 100).rounded(.down))).leftPadded(to: 3)
            text = ProgressLine.bar(fraction) + " \(percent)%  " + text
        }
        return text
    }
}

/// The last line of an import or an export: how many records, in how long, how fast.
struct TransferSummary: Encodable {
    /// `imported` or `exported`: the JSON key of the count, and the text's verb.
    var verb: String
    var records: Int
    var zone: String
    var seconds: Double

    /// `imported 300,000 records into zone Notes in 12.5 s (24,000 records/s)`.
    var text: String {
        let preposition = verb == "imported" ? "into" : "from"
        return "\(verb) \(Self.grouped(records)) record\(records == 1 ? "" : "s") \(preposition) zone \(zone) in "
            + String(format: "%.1f", seconds) + " s (\(Self.rate(records, seconds)) records/s)"
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// `{"imported": 300000, "zone": "Notes", "seconds": 12.5, "recordsPerSecond": 24000}`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(records, forKey: Key(verb))
        try container.encode(zone, forKey: Key("zone"))
        try container.encode((seconds * 1000).rounded() / 1000, forKey: Key("seconds"))
        try container.encode(
            seconds > 0 ? (Double(records) / seconds).rounded() : 0, forKey: Key("recordsPerSecond"))
    }

    /// `records / seconds`, whole and grouped by thousands.
    static func rate(_ records: Int, _ seconds: Double) -> String {
        grouped(seconds > 0 ? Int((Double(records) / seconds).rounded()) : 0)
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }
}
