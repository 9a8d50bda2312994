import Foundation

/// Number formatting for the table and the chart.
enum Format {
    /// `value` with thousands separators and no decimals (`123,456`).
    static func integer(_ value: Double) -> String {
        let whole = Int(value.rounded())
        let digits = String(abs(whole))
        var grouped = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped += "," }
            grouped.append(character)
        }
        return (whole < 0 ? "-" : "") + grouped
    }

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// Seconds as milliseconds with three significant-ish decimals (`1.234 ms`).
    static func milliseconds(_ seconds: Double) -> String {
        let ms = seconds * 1000
        return ms < 10 ? fixed(ms, 3) : ms < 100 ? fixed(ms, 2) : fixed(ms, 1)
    }

    /// A compact count for axis labels (`10k`, `1M`).
    static func compact(_ value: Int) -> String {
        if value >= 1_000_000, value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1000, value % 1000 == 0 { return "\(value / 1000)k" }
        return String(value)
    }
}
