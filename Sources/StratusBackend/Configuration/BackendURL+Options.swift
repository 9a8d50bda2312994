/// Typed reading of a URL's options, for ``BackendProvider`` implementations.
///
/// Each reader returns `default` when the option is absent and throws
/// ``BackendConfigurationError`` with code
/// ``BackendConfigurationError/Code-swift.struct/invalidOptionValue`` — naming the option, its
/// value and what is accepted — when its value is not accepted.
extension BackendURL {
    /// The value of option `name` among `choices` (matched case-insensitively).
    ///
    /// ```swift
    /// let durability = try url.choice("durability", [("full", .full), ("normal", .normal)], default: .full)
    /// ```
    public func choice<Value>(
        _ name: String, _ choices: [(name: String, value: Value)], default defaultValue: Value
    ) throws -> Value {
        guard let text = option(name) else { return defaultValue }
        if let match = choices.first(where: { $0.name.lowercased() == text.lowercased() }) {
            return match.value
        }
        throw BackendConfigurationError.invalidOptionValue(name, of: self, expected: Self.list(choices.map(\.name)))
    }

    /// The value of option `name` as a whole number in `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) throws -> Int {
        guard let text = option(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw BackendConfigurationError.invalidOptionValue(
                name, of: self, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The value of option `name` as `true` (`true`, `yes`, `1`, `on`) or `false` (`false`,
    /// `no`, `0`, `off`).
    public func boolean(_ name: String, default defaultValue: Bool) throws -> Bool {
        try choice(
            name,
            [
                ("true", true), ("false", false), ("yes", true), ("no", false), ("1", true), ("0", false),
                ("on", true), ("off", false),
            ],
            default: defaultValue)
    }

    /// The value of option `name` as a duration: a number and a unit, `ms`, `s`, `m` or `h`
    /// (`500ms`, `5s`, `1.5s`, `2m`), or `0`.
    public func duration(_ name: String, default defaultValue: Duration) throws -> Duration {
        guard let text = option(name) else { return defaultValue }
        guard let value = Self.parseDuration(text) else {
            throw BackendConfigurationError.invalidOptionValue(
                name, of: self, expected: "a duration such as 500ms, 5s or 2m")
        }
        return value
    }

    /// `text` as a duration (see ``duration(_:default:)``), or `nil`.
    static func parseDuration(_ text: String) -> Duration? {
        if text == "0" { return .zero }
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number),
                value.isFinite, value >= 0, value * unit.seconds < 1e9
            else { return nil }
            return .milliseconds(Int64((value * unit.seconds * 1000).rounded()))
        }
        return nil
    }

    /// `["a", "b", "c"]` as `a, b or c`.
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "nothing" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}
