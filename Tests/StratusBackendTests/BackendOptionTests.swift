import StratusBackend
import Testing

@Suite("Backend URL options")
struct BackendOptionTests {
    enum Mode: Equatable { case fast, safe }

    @Test func choices() throws {
        let url = try BackendURL("x:?mode=SAFE&bad=slow")
        #expect(try url.choice("mode", [("fast", Mode.fast), ("safe", .safe)], default: .fast) == .safe)
        #expect(try url.choice("absent", [("fast", Mode.fast), ("safe", .safe)], default: .fast) == .fast)
        let error = #expect(throws: BackendConfigurationError.self) {
            try url.choice("bad", [("fast", Mode.fast), ("safe", .safe), ("auto", .fast)], default: .fast)
        }
        #expect(error?.code == .invalidOptionValue)
        #expect(
            error?.message
                == "invalid value 'slow' for option 'bad' of 'x:?mode=SAFE&bad=slow': expected fast, safe or auto")
    }

    @Test func integers() throws {
        let url = try BackendURL("x:?n=8&big=100&word=many")
        #expect(try url.integer("n", in: 1...64, default: 4) == 8)
        #expect(try url.integer("absent", in: 1...64, default: 4) == 4)
        for name in ["big", "word"] {
            let error = #expect(throws: BackendConfigurationError.self) {
                try url.integer(name, in: 1...64, default: 4)
            }
            #expect(error?.message.hasSuffix("expected a whole number from 1 to 64") == true)
        }
    }

    @Test func booleans() throws {
        let url = try BackendURL("x:?a=yes&b=0&c=On&d=maybe")
        #expect(try url.boolean("a", default: false))
        #expect(try !url.boolean("b", default: true))
        #expect(try url.boolean("c", default: false))
        #expect(throws: BackendConfigurationError.self) { try url.boolean("d", default: false) }
    }

    @Test(
        arguments: [
            ("500ms", Duration.milliseconds(500)), ("5s", .seconds(5)), ("1.5s", .milliseconds(1500)),
            ("2m", .seconds(120)), ("1h", .seconds(3600)), ("0", .zero), ("0s", .zero),
        ])
    func durations(text: String, expected: Duration) throws {
        #expect(try BackendURL("x:?t=\(text)").duration("t", default: .seconds(9)) == expected)
    }

    @Test(arguments: ["5", "fast", "-1s", "s", "5 s", "1e3s", "5d", "ms"])
    func invalidDurations(text: String) throws {
        let url = try BackendURL("x:?t=\(text)")
        let error = #expect(throws: BackendConfigurationError.self) { try url.duration("t", default: .zero) }
        #expect(error?.message.hasSuffix("expected a duration such as 500ms, 5s or 2m") == true)
    }
}
