import Foundation
import StratusBackend
import StratusInMemory
import StratusSQLite
import Testing

@Suite("Built-in backend providers")
struct ProviderTests {
    let sqlite = SQLiteBackendProvider()

    @Test func sqliteLocations() throws {
        #expect(
            try sqlite.configuration(for: BackendURL("sqlite:///var/app/s.sqlite")).location
                == .file(path: "/var/app/s.sqlite"))
        #expect(
            try sqlite.configuration(for: BackendURL("sqlite:/var/app/s.sqlite")).location
                == .file(path: "/var/app/s.sqlite"))
        #expect(
            try sqlite.configuration(for: BackendURL("sqlite:data/s.sqlite")).location == .file(path: "data/s.sqlite"))
        #expect(try sqlite.configuration(for: BackendURL("sqlite::memory:")).location == .inMemory)
    }

    @Test func sqliteOptions() throws {
        let configuration = try sqlite.configuration(
            for: BackendURL("sqlite:///x.sqlite?durability=normal&busyTimeout=250ms&readers=16"))
        #expect(configuration.durability == .normal)
        #expect(configuration.busyTimeout == .milliseconds(250))
        #expect(configuration.readerCount == 16)
        let defaults = try sqlite.configuration(for: BackendURL("sqlite:///x.sqlite"))
        #expect(defaults == SQLiteBackend.Configuration(location: .file(path: "/x.sqlite")))
    }

    @Test(
        arguments: [
            ("sqlite://host/x.sqlite", "a sqlite URL names no host"),
            ("sqlite://user@/x.sqlite", "a sqlite URL names no host"),
            ("sqlite:", "no file path"),
            ("sqlite:///", "no file path"),
            ("sqlite:///tmp/", "names a directory, not a file"),
        ])
    func sqliteBadLocations(text: String, reason: String) throws {
        let error = #expect(throws: BackendConfigurationError.self) {
            try sqlite.configuration(for: BackendURL(text))
        }
        #expect(error?.code == .invalidLocation)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test(
        arguments: [
            ("durability=fast", "invalid value 'fast' for option 'durability'", "expected full or normal"),
            (
                "busyTimeout=5", "invalid value '5' for option 'busyTimeout'",
                "expected a duration such as 500ms, 5s or 2m"
            ),
            ("readers=0", "invalid value '0' for option 'readers'", "expected a whole number from 1 to 64"),
            ("readers=65", "invalid value '65' for option 'readers'", "expected a whole number from 1 to 64"),
        ])
    func sqliteBadOptions(query: String, start: String, end: String) throws {
        let registry = BackendRegistry([sqlite])
        let error = #expect(throws: BackendConfigurationError.self) {
            try registry.makeBackend(for: "sqlite:///tmp/x.sqlite?\(query)")
        }
        #expect(error?.message.hasPrefix(start) == true, "\(error?.message ?? "")")
        #expect(error?.message.hasSuffix(end) == true, "\(error?.message ?? "")")
    }

    @Test func sqliteCreatesMissingDirectories() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-provider-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/data/deeper/store.sqlite"
        let backend = try BackendRegistry([sqlite]).makeBackend(for: "sqlite://" + path)
        try backend.write { try $0.set([1], [42]) }
        try backend.close()
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func sqliteDirectoryThatCannotBeCreatedIsNamed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-provider-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.path + "/data"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let url = "sqlite://\(file)/sub/x.sqlite"
        let error = #expect(throws: BackendConfigurationError.self) {
            try BackendRegistry([sqlite]).makeBackend(for: url)
        }
        #expect(error?.code == .invalidLocation)
        #expect(
            error?.message
                == "invalid location in '\(url)': cannot create the directory '\(file)/sub': '\(file)' exists and is not a directory"
        )
    }

    /// sysfs refuses new directories, even to root (EPERM, or EROFS when mounted read-only).
    @Test func sqliteDirectoryTheSystemRefusesIsNamedWithTheReason() throws {
        let url = "sqlite:///sys/stratus-provider-test/deeper/x.sqlite"
        let error = #expect(throws: BackendConfigurationError.self) {
            try BackendRegistry([sqlite]).makeBackend(for: url)
        }
        let prefix =
            "invalid location in '\(url)': cannot create the directory '/sys/stratus-provider-test/deeper': "
            + "'/sys/stratus-provider-test': "
        #expect(error?.message.hasPrefix(prefix) == true, "\(error?.message ?? "")")
        #expect((error?.message.count ?? 0) > prefix.count)
        #expect(!FileManager.default.fileExists(atPath: "/sys/stratus-provider-test"))
    }

    @Test func sqliteOpensAndReopensAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-provider-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "sqlite://\(directory.path)/store.sqlite?durability=normal"
        let registry = BackendRegistry([sqlite])
        let first = try registry.makeBackend(for: url)
        try first.write { try $0.set([1], [42]) }
        try first.close()
        let second = try registry.makeBackend(for: url)
        #expect(try second.read { try $0.get([1]) } == [42])
        try second.close()
    }

    @Test func sqliteTemporaryStorageIsFreshAndRemoved() throws {
        let registry = BackendRegistry([sqlite])
        let storage = try registry.makeTemporaryStorage(like: BackendURL("sqlite:///ignored.sqlite?readers=2"))
        #expect(storage.url.option("readers") == "2")
        #expect(storage.url.path.hasSuffix("/store.sqlite"))
        let first = try storage.open()
        try first.write { try $0.set([7], [7]) }
        try first.close()
        let second = try storage.open()
        #expect(try second.read { try $0.get([7]) } == [7])
        try second.close()
        let directory = (storage.url.path as NSString).deletingLastPathComponent
        #expect(FileManager.default.fileExists(atPath: directory))
        try storage.destroy()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func sqliteMemoryCannotBeTemporaryStorage() {
        let error = #expect(throws: BackendConfigurationError.self) {
            try BackendRegistry([sqlite]).makeTemporaryStorage(like: BackendURL("sqlite::memory:"))
        }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("cannot be reopened") == true)
    }

    @Test func memoryStoresArePrivateUnlessNamed() throws {
        let registry = BackendRegistry([InMemoryBackendProvider()])
        let a = try registry.makeBackend(for: "memory:")
        try a.write { try $0.set([1], [1]) }
        #expect(try registry.makeBackend(for: "memory:").read { try $0.get([1]) } == nil)

        let named = try registry.makeBackend(for: "memory:shared")
        try named.write { try $0.set([2], [2]) }
        try named.close()
        #expect(try registry.makeBackend(for: "memory:shared").read { try $0.get([2]) } == [2])
        #expect(try registry.makeBackend(for: "memory:other").read { try $0.get([2]) } == nil)

        // Another provider (another registry) has its own names.
        let elsewhere = BackendRegistry([InMemoryBackendProvider()])
        #expect(try elsewhere.makeBackend(for: "memory:shared").read { try $0.get([2]) } == nil)
    }

    @Test func memoryNamedStoreCanBeRemoved() throws {
        let provider = InMemoryBackendProvider()
        let registry = BackendRegistry([provider])
        try registry.makeBackend(for: "memory:gone").write { try $0.set([3], [3]) }
        provider.removeNamedStore("gone")
        #expect(try registry.makeBackend(for: "memory:gone").read { try $0.get([3]) } == nil)
    }

    @Test func memoryRejectsAuthorityAndOptions() {
        let registry = BackendRegistry([InMemoryBackendProvider()])
        let authority = #expect(throws: BackendConfigurationError.self) { try registry.makeBackend(for: "memory://x") }
        #expect(authority?.code == .invalidLocation)
        let option = #expect(throws: BackendConfigurationError.self) { try registry.makeBackend(for: "memory:?size=1") }
        #expect(option?.message == "unknown option 'size' in 'memory:?size=1'; it accepts no options")
    }
}
