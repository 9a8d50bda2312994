import StratusBackend
import Testing

@Suite("Backend URLs")
struct BackendURLTests {
    @Test func absoluteFilePath() throws {
        let url = try BackendURL("sqlite:///var/lib/app/store.sqlite")
        #expect(url.scheme == "sqlite")
        #expect(url.authority == BackendURL.Authority(host: ""))
        #expect(url.path == "/var/lib/app/store.sqlite")
        #expect(url.options.isEmpty)
        #expect(url.string == "sqlite:///var/lib/app/store.sqlite")
    }

    @Test func opaquePaths() throws {
        let relative = try BackendURL("sqlite:data/store.sqlite")
        #expect(relative.authority == nil)
        #expect(relative.path == "data/store.sqlite")
        #expect(try BackendURL("sqlite::memory:").path == ":memory:")
        #expect(try BackendURL("memory:").path == "")
        #expect(try BackendURL("memory:shared").path == "shared")
    }

    @Test func schemeIsCaseInsensitiveAndWhitespaceIsTrimmed() throws {
        let url = try BackendURL("  SQLite:///x.sqlite\n")
        #expect(url.scheme == "sqlite")
        #expect(url.path == "/x.sqlite")
    }

    @Test func optionsInOrder() throws {
        let url = try BackendURL("sqlite:///x.sqlite?durability=normal&busyTimeout=500ms&readers=8&flag")
        #expect(url.options.map(\.name) == ["durability", "busyTimeout", "readers", "flag"])
        #expect(url.option("readers") == "8")
        #expect(url.option("flag") == "")
        #expect(url.option("missing") == nil)
        #expect(url.option("Durability") == nil)
    }

    @Test func authorityParts() throws {
        let url = try BackendURL("postgresql://app:s%40cret@db.example:5433/stratus?poolSize=8")
        #expect(url.authority?.user == "app")
        #expect(url.authority?.password == "s@cret")
        #expect(url.authority?.host == "db.example")
        #expect(url.authority?.port == 5433)
        #expect(url.path == "/stratus")
        #expect(url.option("poolSize") == "8")
        let ipv6 = try BackendURL("postgresql://[::1]:5432/db")
        #expect(ipv6.authority?.host == "::1")
        #expect(ipv6.authority?.port == 5432)
        #expect(ipv6.string == "postgresql://[::1]:5432/db")
    }

    @Test func secretOptionsNeverInDescriptionOrErrors() throws {
        let url = try BackendURL("postgresql://app@db/stratus?password=hunter2&sslPassword=p2&pool=4&apiToken=t0k")
        #expect(url.description == "postgresql://app@db/stratus?password=***&sslPassword=***&pool=4&apiToken=***")
        #expect(url.string.contains("password=hunter2"))
    }

    @Test func passwordNeverInDescription() throws {
        let url = try BackendURL("postgresql://app:hunter2@db/stratus")
        #expect(url.description == "postgresql://app:***@db/stratus")
        #expect(url.string == "postgresql://app:hunter2@db/stratus")
        let error = #expect(throws: BackendConfigurationError.self) {
            try BackendURL("postgresql://app:hunter2@db:99999/stratus")
        }
        #expect(error?.message.contains("hunter2") == false)
        #expect(error?.message.contains("app:***@db") == true)
    }

    @Test func percentEncodingRoundTrips() throws {
        let url = try BackendURL("sqlite:///tmp/my%20store%23.sqlite?tag=a%26b")
        #expect(url.path == "/tmp/my store#.sqlite")
        #expect(url.option("tag") == "a&b")
        #expect(try BackendURL(url.string) == url)
    }

    @Test func settingOptionReplaces() throws {
        let url = try BackendURL("sqlite:///x?readers=2").settingOption("readers", to: "8").settingOption(
            "durability", to: "normal")
        #expect(url.string == "sqlite:///x?readers=8&durability=normal")
        #expect(url.settingOption("readers", to: nil).string == "sqlite:///x?durability=normal")
    }

    @Test(
        arguments: [
            ("", "it has no scheme"),
            ("store.sqlite", "it has no scheme"),
            ("1sqlite:///x", "is not a scheme"),
            ("sql ite:///x", "is not a scheme"),
            ("sqlite:///x#frag", "no '#fragment'"),
            ("sqlite:///x%zz", "invalid percent escape"),
            ("sqlite:///x?a=1&a=2", "option 'a' is given more than once"),
            ("sqlite:///x?=1", "an option has no name"),
            ("postgresql://h:port/db", "'port' is not a port"),
            ("postgresql://[::1/db", "no closing ']'"),
        ])
    func malformed(text: String, reason: String) {
        let error = #expect(throws: BackendConfigurationError.self) { try BackendURL(text) }
        #expect(error?.code == .malformedURL)
        #expect(error?.message.hasPrefix("malformed backend URL '\(text)'") == true)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }
}
