import Foundation
import Stratus
import StratusPostgreSQL
import Testing

/// Decision 0020.5: the environment's schema row is read and written in the transaction of the
/// save that adds a field, so two processes adding fields at once lose none of them.
@Suite("PostgreSQL schema concurrency")
struct PostgreSQLSchemaConcurrencyTests {
    @Test func twoEnginesAddingFieldsAtOnceLoseNone() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let backends = try (0..<2).map { _ in
            try PostgreSQLBackend(configuration: try PostgreSQLTestServer.configuration(storage, pool: 2))
        }
        defer { for backend in backends { try? backend.close() } }
        let identifier = "iCloud.stratus.schema-race"
        let perWriter = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writer, backend) in backends.enumerated() {
                group.addTask {
                    // Each writer its own container object and engine, as a process of its own.
                    let database = CKContainer(identifier: identifier, backend: backend).privateCloudDatabase
                    for index in 0..<perWriter {
                        let record = CKRecord(
                            recordType: "Race", recordID: CKRecord.ID(recordName: "w\(writer)-\(index)"))
                        record["w\(writer)f\(index)"] = index
                        _ = try await database.save(record)
                    }
                }
            }
            try await group.waitForAll()
        }
        let schema = try Engine(backend: backends[1])
            .schema(of: SchemaScope(container: identifier, environment: .development))
        let fields = Set(schema[recordType: "Race"]?.fields.keys.map { $0 } ?? [])
        let expected = Set((0..<2).flatMap { writer in (0..<perWriter).map { "w\(writer)f\($0)" } })
        #expect(fields == expected, "missing: \(expected.subtracting(fields).sorted())")
    }
}
