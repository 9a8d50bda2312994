import Foundation
import Testing

@testable import Stratus

/// `configuredWith(configuration:group:body:)`: what the conveniences' operations receive.
@Suite struct DatabaseConvenienceConfigurationTests {
    @Test func operationsEnqueuedByConveniencesGetTheScopesConfigurationAndGroup() async throws {
        let container = OpsTestKit.makeContainer()
        let database = container.privateCloudDatabase
        let configuration = CKOperation.Configuration()
        configuration.qualityOfService = .utility
        configuration.timeoutIntervalForRequest = 7
        let group = CKOperationGroup()

        let inside = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        await database.configuredWith(configuration: configuration, group: group) { database in
            await OpsTestKit.runConvenience(inside, on: database)
        }
        #expect(inside.group === group)
        #expect(inside.configuration.qualityOfService == .utility)
        #expect(inside.configuration.timeoutIntervalForRequest == 7)
        // A copy: changing the scope's configuration later does not reach the operation.
        configuration.timeoutIntervalForRequest = 1
        #expect(inside.configuration.timeoutIntervalForRequest == 7)

        let outside = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        await OpsTestKit.runConvenience(outside, on: database)
        #expect(outside.group == nil)
        #expect(outside.configuration.qualityOfService == .default)

        // Another database's scope does not apply.
        let other = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        await container.publicCloudDatabase.configuredWith(group: group) { _ in
            await OpsTestKit.runConvenience(other, on: database)
        }
        #expect(other.group == nil)
    }

    @Test func theInnermostScopeWinsAndTheSynchronousFormWorksToo() throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let outerGroup = CKOperationGroup()
        let innerGroup = CKOperationGroup()
        let operation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        database.configuredWith(group: outerGroup) { database in
            database.configuredWith(group: innerGroup) { database in
                database.enqueueConvenience(operation)
            }
        }
        #expect(operation.group === innerGroup)
        operation.waitUntilFinished()
        #expect(operation.isFinished)
    }
}

extension OpsTestKit {
    /// Adds `operation` the way the conveniences do and waits until it finished.
    static func runConvenience(_ operation: CKDatabaseOperation, on database: CKDatabase) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operation.completionBlock = { continuation.resume() }
            database.enqueueConvenience(operation)
        }
    }
}
