import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import Testing

/// The `environment` setting (decision 0020): production comes from the configuration, so
/// code that calls `CKContainer(identifier:)` unchanged runs against a fixed schema.
extension BootstrapTests {
    @Test func theEnvironmentComesFromTheConfiguration() async throws {
        let settings = try await StratusSettings.load(environment: ["STRATUS_ENVIRONMENT": "production"])
        #expect(settings.environment == .production)
        #expect(settings.origins["environment"] == "environment variable STRATUS_ENVIRONMENT")
        #expect(try await StratusSettings.load(environment: [:]).environment == .development)

        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_ENVIRONMENT": "staging"])
        }
        #expect(
            error?.message
                == "configuration: invalid environment 'staging'; accepted: development or production (from environment variable STRATUS_ENVIRONMENT)"
        )
        #expect(error?.key == "environment")
    }

    @Test func aProductionDefaultContainerKeepsToItsSchema() async throws {
        let configured = try await StratusBootstrap.configureDefaultContainers(
            environment: [
                "STRATUS_BACKEND": "memory:", "STRATUS_CONTAINER": "iCloud.boot.production",
                "STRATUS_ENVIRONMENT": "production",
            ], registry: BackendRegistry())
        defer { try? configured.backend?.close() }
        let database = CKContainer(identifier: "iCloud.boot.production").publicCloudDatabase
        let record = CKRecord(recordType: "Undeclared")
        record["title"] = "no schema declares it"
        // An empty production schema: the save of a type it does not declare fails, naming it.
        let error = await #expect(throws: CKError.self) { _ = try await database.save(record) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.localizedDescription.contains("Undeclared") == true)

        // The same code against a development default grows the schema.
        let development = try await StratusBootstrap.configureDefaultContainers(
            environment: ["STRATUS_BACKEND": "memory:", "STRATUS_CONTAINER": "iCloud.boot.development"],
            registry: BackendRegistry())
        defer { try? development.backend?.close() }
        let saved = try await CKContainer(identifier: "iCloud.boot.development").publicCloudDatabase.save(record)
        #expect(saved["title"] as? String == "no schema declares it")
    }
}
