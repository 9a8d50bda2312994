import Foundation
import Stratus
import Testing

/// The server side of long-lived operations (decision 0014.8–11) over loopback against a
/// real `stratusd`: submitted operations run without their client, their callbacks are
/// journaled once each in order, and only their user reaches them.
@Suite("stratusd: long-lived operations")
struct LongLivedEndpointTests {
    static let zone = CKRecordZone.ID(zoneName: "Journal")

    /// A modify saving `count` records `prefix0…` in ``zone``.
    static func modify(_ count: Int, prefix: String = "r") -> CKModifyRecordsOperation {
        let records = (0..<count).map { index -> CKRecord in
            let record = CKRecord(
                recordType: "Note", recordID: CKRecord.ID(recordName: "\(prefix)\(index)", zoneID: zone))
            record["title"] = "note \(index)"
            return record
        }
        return CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
    }

    /// A zone-changes fetch of ``zone`` from the start, `pageSize` records per journaled page.
    static func zoneChanges(pageSize: Int = 0) -> CKFetchRecordZoneChangesOperation {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration()
        configuration.resultsLimit = pageSize
        return CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zone], configurationsByRecordZoneID: [zone: configuration])
    }

    @Test func aSubmittedModifyAndZoneFetchRunWithoutTheirClientAndReplayOnceInOrder() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(Self.zone.zoneName)
        let submitted = try await ws.submit(Self.modify(5), id: "modify-1")
        #expect(submitted.status == 200, "\(submitted.json)")
        #expect(submitted.json["persisted"] as? Bool == true)
        // The submitting connection is gone; the events are read by other requests.
        let events = try await ws.allEvents("modify-1")
        #expect(events.map(\.sequence) == Array(0..<6))
        #expect(
            try EventSummaries.lines(events, of: "CKModifyRecordsOperation")
                == ["saved r0", "saved r1", "saved r2", "saved r3", "saved r4", "finished"])
        #expect(events.last?.isFinal == true)

        let fetch = try await ws.submit(Self.zoneChanges(), id: "fetch-1")
        #expect(fetch.status == 200, "\(fetch.json)")
        let fetched = try EventSummaries.lines(
            try await ws.allEvents("fetch-1"), of: "CKFetchRecordZoneChangesOperation")
        #expect(fetched.filter { $0.hasPrefix("changed") }.sorted() == (0..<5).map { "changed r\($0)" })
        #expect(fetched.suffix(2) == ["zone Journal", "finished"])

        // Completed and not delivered: listed, oldest first, until the client says delivered.
        #expect(try await ws.listedOperations() == ["modify-1", "fetch-1"])
        let delivered = try await ws.operations("POST", "/modify-1/delivered")
        #expect(delivered.status == 200 && delivered.json["state"] as? String == "delivered", "\(delivered.json)")
        #expect(try await ws.listedOperations() == ["fetch-1"])
        // The records were saved once: their change tags are those of the one save.
        let changes = try await ws.post(
            "records/changes", ["zoneID": ["zoneName": Self.zone.zoneName]], database: "private")
        #expect(changes.records.count == 5, "\(changes.json)")
    }

    @Test func aResubmittedOperationIDAnswersTheExistingEntryAndRunsOnce() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(Self.zone.zoneName)
        let first = try await ws.submit(Self.modify(2), id: "again", isLongLived: false)
        #expect(first.status == 200, "\(first.json)")
        let events = try await ws.allEvents("again")
        let tags = try await ws.changeTags()
        // Unlisted (an idempotent modify), and a retry changes nothing.
        #expect(try await ws.listedOperations().isEmpty)
        let retry = try await ws.submit(Self.modify(2), id: "again", isLongLived: false)
        #expect(retry.status == 200 && retry.json["state"] as? String == "completed", "\(retry.json)")
        #expect(try await ws.allEvents("again").map(\.bytes) == events.map(\.bytes))
        #expect(try await ws.changeTags() == tags, "the retried modify was not applied again")
        // The same ID for another request is refused.
        let other = try await ws.submit(Self.modify(3), id: "again", isLongLived: false)
        #expect(other.status == 400, "\(other.json)")
        #expect(try await ws.changeTags() == tags)
    }

    @Test func recordsModifyWithAnOperationIDIsAppliedOnce() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(Self.zone.zoneName)
        let body = try JSONSerialization.data(withJSONObject: [
            "zoneID": ["zoneName": Self.zone.zoneName],
            "operations": [
                [
                    "operationType": "create",
                    "record": ["recordName": "once", "recordType": "Note", "fields": ["n": ["value": 1]]],
                ]
            ],
        ])
        let path = "database/1/\(WebServicesFixture.container)/development/private/records/modify"
        func send(_ body: Data, id: String?, as credentials: WebServicesFixture.Credentials = .alice) async throws
            -> WebServicesFixture.RawAnswer
        {
            try await ws.raw(
                "POST", path, body: body, as: credentials, headers: id.map { ["X-Stratus-Operation-ID": $0] } ?? [:])
        }
        let first = try await send(body, id: "save-once")
        #expect(first.status == 200)
        let saved = try #require((first.json["records"] as? [[String: Any]])?.first)
        #expect(saved["recordChangeTag"] != nil, "\(first.json)")
        let tags = try await ws.changeTags()
        // A retry (the answer was lost) gets the same answer, and nothing is applied again.
        let retry = try await send(body, id: "save-once")
        #expect(retry.status == 200)
        #expect(NSDictionary(dictionary: retry.json) == NSDictionary(dictionary: first.json), "\(retry.json)")
        #expect(try await ws.changeTags() == tags)
        // Without the header the same create is applied again, and fails: the record exists.
        let plain = try await send(body, id: nil)
        #expect((plain.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] != nil, "\(plain.json)")
        // The ID with another body is refused; another user's equal ID is independent.
        let other = try await send(
            Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "once", with: "twice").utf8),
            id: "save-once")
        #expect(other.status == 400, "\(other.json)")
        try await ws.makeZone(Self.zone.zoneName, as: .bob)
        let bobs = try await send(body, id: "save-once", as: .bob)
        #expect(
            bobs.status == 200 && (bobs.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] == nil,
            "\(bobs.json)")
        #expect(try await ws.listedOperations().isEmpty, "idempotent modifies are not listed")
        #expect(try await send(body, id: "").status == 400)
    }

    /// The outcome is journaled as one event holding every item (decision 0014.11): a retry of
    /// saves, a deletion and a failed item gets every answer back, in request order.
    @Test func aRetriedModifyOfManyItemsGetsEveryItemsAnswerInOrder() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(Self.zone.zoneName)
        let path = "database/1/\(WebServicesFixture.container)/development/private/records/modify"
        func create(_ name: String) -> [String: Any] {
            [
                "operationType": "create",
                "record": ["recordName": name, "recordType": "Note", "fields": ["n": ["value": 1]]],
            ]
        }
        func send(_ operations: [[String: Any]], id: String?) async throws -> WebServicesFixture.RawAnswer {
            // Sorted keys: a retry sends the same bytes (the journal keeps the body's SHA-256).
            let body = try JSONSerialization.data(
                withJSONObject: [
                    "zoneID": ["zoneName": Self.zone.zoneName], "operations": operations, "atomic": false,
                ],
                options: .sortedKeys)
            return try await ws.raw(
                "POST", path, body: body, as: .alice, headers: id.map { ["X-Stratus-Operation-ID": $0] } ?? [:])
        }
        #expect(try await send([create("kept"), create("gone")], id: nil).status == 200)
        let operations =
            (0..<3).map { create("new\($0)") } + [create("kept")]
            + [["operationType": "forceDelete", "record": ["recordName": "gone"]]]
        let first = try await send(operations, id: "many")
        let items = try #require(first.json["records"] as? [[String: Any]], "\(first.json)")
        #expect(items.map { $0["recordName"] as? String } == ["new0", "new1", "new2", "kept", "gone"])
        #expect(items[3]["serverErrorCode"] != nil && items[4]["deleted"] as? Bool == true, "\(items)")
        let tags = try await ws.changeTags()
        let retry = try await send(operations, id: "many")
        // Equal item by item, but for the failed item's `uuid`: the ID of the request answered.
        let retried = try #require(retry.json["records"] as? [[String: Any]], "\(retry.json)")
        func withoutUUID(_ item: [String: Any]) -> NSDictionary {
            NSDictionary(dictionary: item.filter { $0.key != "uuid" })
        }
        #expect(retried.map(withoutUUID) == items.map(withoutUUID), "\(retried)")
        #expect(try await ws.changeTags() == tags)
    }

    @Test func anotherUserNeitherListsNorReachesAnOperation() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(Self.zone.zoneName)
        #expect(try await ws.submit(Self.modify(1), id: "alices").status == 200)
        _ = try await ws.allEvents("alices")
        #expect(try await ws.listedOperations(as: .bob).isEmpty)
        for (method, suffix) in [("GET", "/alices/events"), ("POST", "/alices/cancel"), ("POST", "/alices/delivered")] {
            let answer = try await ws.operations(method, suffix, query: "timeout=0", as: .bob)
            #expect(answer.status == 404, "\(method) \(suffix) as bob: \(answer.status) \(answer.json)")
        }
        #expect(try await ws.listedOperations() == ["alices"], "bob's attempts changed nothing of alice's")
        // Bob's own operation with the same ID is his own, in his own database.
        try await ws.makeZone(Self.zone.zoneName, as: .bob)
        #expect(try await ws.submit(Self.modify(1, prefix: "b"), id: "alices", as: .bob).status == 200)
        #expect(
            try EventSummaries.lines(try await ws.allEvents("alices", as: .bob), of: "CKModifyRecordsOperation") == [
                "saved b0", "finished",
            ])
        // No credentials, or an API token alone: refused like any write.
        #expect(try await ws.operations("GET", as: .none).status == 401)
        #expect(try await ws.operations("GET", as: .anonymous).status == 421)
    }

    @Test func cancellingStopsTheOperationAndUnlistsIt() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(Self.zone.zoneName)
        try await ws.fillZone(records: 200)
        #expect(try await ws.submit(Self.zoneChanges(pageSize: 1), id: "long").status == 200)
        let cancelled = try await ws.operations("POST", "/long/cancel")
        #expect(cancelled.status == 200, "\(cancelled.json)")
        #expect(try await ws.listedOperations().isEmpty)
        let page = try await ws.eventPage("long", from: 0, timeout: 0)
        #expect(page.state == "cancelled")
    }
}

extension WebServicesFixture {
    /// Creates zone `name` in the private database of `credentials`' user.
    func makeZone(_ name: String, as credentials: Credentials = .alice) async throws {
        let made = try await post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": name]]]]],
            database: "private", as: credentials)
        try #require(made.status == 200, "zones/modify: \(made.json)")
    }

    /// Saves `records` records `f0…` in zone Journal, 200 per request.
    func fillZone(records: Int) async throws {
        for start in stride(from: 0, to: records, by: 200) {
            let operations = (start..<min(records, start + 200)).map { index -> [String: Any] in
                [
                    "operationType": "create",
                    "record": ["recordName": "f\(index)", "recordType": "Note", "fields": ["title": ["value": "f"]]],
                ]
            }
            let saved = try await post(
                "records/modify", ["operations": operations, "zoneID": ["zoneName": "Journal"]], database: "private")
            try #require(saved.status == 200, "records/modify: \(saved.json)")
        }
    }

    /// Record name → change tag of every record in zone Journal of alice's private database.
    func changeTags() async throws -> [String: String] {
        let changes = try await post("records/changes", ["zoneID": ["zoneName": "Journal"]], database: "private")
        try #require(changes.status == 200, "records/changes: \(changes.json)")
        var tags: [String: String] = [:]
        for record in changes.records {
            tags[record["recordName"] as? String ?? ""] = record["recordChangeTag"] as? String ?? ""
        }
        return tags
    }
}
