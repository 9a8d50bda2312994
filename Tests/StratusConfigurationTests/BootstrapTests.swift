import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import Testing

@Suite("Start-up from configuration", .serialized)
struct BootstrapTests {
    @Test func defaultBackendCreatesTheDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-boot-\(UUID())/data")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let registry = BackendRegistry()
        let configured = try await StratusBootstrap.configureDefaultContainers(
            environment: ["STRATUS_DATA_DIR": directory.path, "STRATUS_CONTAINER": "iCloud.boot"], registry: registry)
        defer { try? configured.backend?.close() }
        #expect(registry.schemes == ["lmdb", "memory", "sqlite"])
        #expect(configured.settings.backend.string == "sqlite://\(directory.path)/stratus.sqlite")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("stratus.sqlite").path))

        // CloudKit code that makes its own containers now reaches the configured store.
        let container = CKContainer.default()
        #expect(container.containerIdentifier == "iCloud.boot")
        let zone = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Boot"))
        #expect(zone.zoneID.zoneName == "Boot")
    }

    @Test func customProvidersJoinAndBuiltInsDoNotReplaceThem() async throws {
        struct Custom: BackendProvider {
            var scheme: String { "sqlite" }
            var summary: String { "a custom sqlite" }
            var options: [BackendOption] { [] }
            func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
                throw BackendConfigurationError(.unsupported, "custom provider reached", url: url)
            }
        }
        let registry = BackendRegistry()
        let error = await #expect(throws: BackendConfigurationError.self) {
            try await StratusBootstrap.configureDefaultContainers(
                providers: [Custom()], environment: ["STRATUS_BACKEND": "sqlite:///tmp/x.sqlite"], registry: registry)
        }
        #expect(error?.message == "custom provider reached")
        #expect(registry.provider(forScheme: "sqlite")?.summary == "a custom sqlite")
    }

    @Test func unknownSchemeFromTheEnvironment() async throws {
        let error = await #expect(throws: BackendConfigurationError.self) {
            try await StratusBootstrap.configureDefaultContainers(
                environment: ["STRATUS_BACKEND": "fdb:///var/lib/app"], registry: BackendRegistry())
        }
        #expect(
            error?.message
                == "unknown backend scheme 'fdb' in 'fdb:///var/lib/app'; registered schemes: lmdb, memory, sqlite")
    }
}
