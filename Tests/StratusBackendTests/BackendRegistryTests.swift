import StratusBackend
import Synchronization
import Testing

/// A provider that records what it was asked to make.
private struct RecordingProvider: BackendProvider {
    var scheme: String
    var summary: String { "a test provider" }
    var options: [BackendOption] {
        [BackendOption(name: "size", accepted: "1 to 10", defaultValue: "1", summary: "how big")]
    }
    let made = Made()

    final class Made: Sendable {
        let urls = Mutex<[String]>([])
    }

    func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
        _ = try url.integer("size", in: 1...10, default: 1)
        made.urls.withLock { $0.append(url.string) }
        if url.path == "fail" { throw BackendError(.unavailable, "the disk is gone") }
        return NullBackend()
    }
}

/// A backend that stores nothing (the registry never calls it).
private final class NullBackend: DatabaseBackend {
    func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        throw BackendError(.internal, "not used")
    }
    func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        throw BackendError(.internal, "not used")
    }
    func close() throws {}
}

@Suite("Backend registry")
struct BackendRegistryTests {
    @Test func anUnknownSecretOptionIsNamedButItsValueIsNot() throws {
        let registry = BackendRegistry([RecordingProvider(scheme: "test")])
        let error = #expect(throws: BackendConfigurationError.self) {
            _ = try registry.provider(for: BackendURL("test:store?password=hunter2"))
        }
        #expect(error?.message.contains("unknown option 'password'") == true)
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test func makesThroughTheSchemesProvider() throws {
        let provider = RecordingProvider(scheme: "test")
        let registry = BackendRegistry([provider])
        _ = try registry.makeBackend(for: "TEST:thing?size=3")
        #expect(provider.made.urls.withLock { $0 } == ["test:thing?size=3"])
        #expect(registry.schemes == ["test"])
    }

    @Test func unknownSchemeListsTheRegisteredOnes() {
        let registry = BackendRegistry([RecordingProvider(scheme: "sqlite"), RecordingProvider(scheme: "memory")])
        let error = #expect(throws: BackendConfigurationError.self) { try registry.makeBackend(for: "lmdb:///data") }
        #expect(error?.code == .unknownScheme)
        #expect(error?.message == "unknown backend scheme 'lmdb' in 'lmdb:///data'; registered schemes: memory, sqlite")
        let empty = #expect(throws: BackendConfigurationError.self) { try BackendRegistry().makeBackend(for: "x:") }
        #expect(empty?.message.hasSuffix("registered schemes: none") == true)
    }

    @Test func unknownOptionListsTheAcceptedOnes() {
        let registry = BackendRegistry([RecordingProvider(scheme: "test")])
        let error = #expect(throws: BackendConfigurationError.self) { try registry.makeBackend(for: "test:x?sise=2") }
        #expect(error?.code == .unknownOption)
        #expect(error?.message == "unknown option 'sise' in 'test:x?sise=2'; accepted options: size")
    }

    @Test func badOptionValueNamesOptionValueAndAccepted() {
        let registry = BackendRegistry([RecordingProvider(scheme: "test")])
        let error = #expect(throws: BackendConfigurationError.self) { try registry.makeBackend(for: "test:x?size=99") }
        #expect(error?.code == .invalidOptionValue)
        #expect(
            error?.message
                == "invalid value '99' for option 'size' of 'test:x?size=99': expected a whole number from 1 to 10")
    }

    @Test func backendErrorsBecomeCannotOpen() {
        let registry = BackendRegistry([RecordingProvider(scheme: "test")])
        let error = #expect(throws: BackendConfigurationError.self) { try registry.makeBackend(for: "test:fail") }
        #expect(error?.code == .cannotOpen)
        #expect(error?.message == "cannot open backend 'test:fail': BackendError(unavailable): the disk is gone")
        #expect(error?.underlying is BackendError)
    }

    @Test func registrationReplacesUnlessToldNot() {
        let registry = BackendRegistry()
        let first = RecordingProvider(scheme: "test")
        let second = RecordingProvider(scheme: "Test")
        #expect(registry.register(first))
        #expect(!registry.register(second, replacing: false))
        _ = try? registry.makeBackend(for: "test:a")
        #expect(first.made.urls.withLock { $0.count } == 1)
        #expect(registry.register(second))
        _ = try? registry.makeBackend(for: "test:b")
        #expect(second.made.urls.withLock { $0.count } == 1)
        #expect(registry.unregister(scheme: "TEST") != nil)
        #expect(registry.schemes.isEmpty)
    }

    @Test func temporaryStorageIsUnsupportedByDefault() {
        let registry = BackendRegistry([RecordingProvider(scheme: "test")])
        let error = #expect(throws: BackendConfigurationError.self) {
            try registry.makeTemporaryStorage(like: BackendURL("test:x"))
        }
        #expect(error?.code == .unsupported)
    }

    @Test func registrationFromManyThreads() async {
        let registry = BackendRegistry()
        await withTaskGroup(of: Void.self) { group in
            for n in 0..<64 {
                group.addTask {
                    registry.register(RecordingProvider(scheme: "s\(n % 8)"))
                    _ = registry.schemes
                    _ = try? registry.makeBackend(for: "s\(n % 8):x")
                }
            }
        }
        #expect(registry.schemes == (0..<8).map { "s\($0)" })
    }
}
