import Foundation
import Testing

/// `records/query` over system fields (`systemFieldName`) and the request-shape refusals.
@Suite("stratusd: records/query system fields and refusals")
struct QueryEndpointSystemFieldTests {
    private func create(_ ws: WebServicesFixture, _ name: String, as who: WebServicesFixture.Credentials) async throws
        -> [String: Any]
    {
        let saved = try await ws.post(
            "records/modify",
            [
                "operations": [
                    [
                        "operationType": "create",
                        "record": ["recordName": name, "recordType": "Post", "fields": ["title": ["value": name]]],
                    ]
                ]
            ], as: who)
        let record = try #require(saved.records.first, "\(saved.json)")
        #expect(record["serverErrorCode"] == nil, "\(record)")
        return record
    }

    private func query(_ ws: WebServicesFixture, _ query: [String: Any]) async throws -> [String] {
        var body = query
        body["recordType"] = "Post"
        let answer = try await ws.post("records/query", ["query": body], as: .anonymous)
        #expect(answer.status == 200, "\(answer.json)")
        return answer.records.compactMap { $0["recordName"] as? String }
    }

    @Test func systemFieldsFilterAndSort() async throws {
        let ws = try WebServicesFixture()
        let first = try await create(ws, "p1", as: .alice)
        try await Task.sleep(for: .milliseconds(20))
        _ = try await create(ws, "p2", as: .bob)
        try await Task.sleep(for: .milliseconds(20))
        _ = try await create(ws, "p3", as: .alice)
        let alice = try #require((first["created"] as? [String: Any])?["userRecordName"] as? String)
        let created = try #require((first["created"] as? [String: Any])?["timestamp"] as? NSNumber)

        let newestFirst = try await query(
            ws, ["sortBy": [["systemFieldName": "createdTimestamp", "ascending": false]]])
        #expect(newestFirst == ["p3", "p2", "p1"])
        let later = try await query(
            ws,
            [
                "filterBy": [
                    [
                        "comparator": "GREATER_THAN", "systemFieldName": "createdTimestamp",
                        "fieldValue": ["value": created.int64Value + 1],
                    ]
                ]
            ])
        // + 1: the engine keeps times finer than the millisecond a response rounds to.
        #expect(later.sorted() == ["p2", "p3"], "a system timestamp takes milliseconds without a type")
        let byAlice = try await query(
            ws,
            [
                "filterBy": [
                    [
                        "comparator": "EQUALS", "systemFieldName": "createdUserRecordName",
                        "fieldValue": ["value": alice],
                    ]
                ]
            ])
        #expect(byAlice.sorted() == ["p1", "p3"])
        let named = try await query(
            ws,
            [
                "filterBy": [
                    [
                        "comparator": "IN", "systemFieldName": "recordName",
                        "fieldValue": [
                            "value": [["recordName": "p1"], ["recordName": "p2"]], "type": "REFERENCE_LIST",
                        ],
                    ]
                ]
            ])
        #expect(named.sorted() == ["p1", "p2"])
    }

    @Test func malformedQueriesAreRefusedNamingThePart() async throws {
        let ws = try WebServicesFixture()
        _ = try await create(ws, "p1", as: .alice)
        let cases: [([String: Any], String)] = [
            (
                ["query": ["recordType": "Post", "filterBy": [["comparator": "EQUALS", "fieldValue": ["value": 1]]]]],
                "query.filterBy[0]: fieldName"
            ),
            (
                [
                    "query": [
                        "recordType": "Post",
                        "filterBy": [
                            ["comparator": "EQUALS", "systemFieldName": "share", "fieldValue": ["value": "x"]]
                        ],
                    ]
                ], "systemFieldName 'share'"
            ),
            (
                [
                    "query": [
                        "recordType": "Post",
                        "filterBy": [["comparator": "IN", "fieldName": "title", "fieldValue": ["value": "x"]]],
                    ]
                ], "needs a list"
            ),
            (
                [
                    "query": [
                        "recordType": "Post",
                        "filterBy": [
                            ["comparator": "EQUALS", "fieldName": "title", "fieldValue": ["value": 1, "type": "WAT"]]
                        ],
                    ]
                ], "unknown type 'WAT'"
            ),
            (
                [
                    "query": [
                        "recordType": "Post",
                        "sortBy": [
                            [
                                "fieldName": "place", "ascending": false,
                                "relativeLocation": ["latitude": 0, "longitude": 0],
                            ]
                        ],
                    ]
                ], "query.sortBy[0]"
            ),
            (["query": ["recordType": "Post"], "resultsLimit": 0], "resultsLimit"),
            (["query": ["filterBy": []]], "recordType"),
        ]
        for (body, words) in cases {
            let answer = try await ws.post("records/query", body)
            #expect(answer.status == 400, "\(words): \(answer.json)")
            let reason = answer.json["reason"] as? String ?? ""
            #expect(reason.contains(words), "\(words): \(reason)")
        }
        let get = try await ws.send(
            "GET", "database/1/\(WebServicesFixture.container)/development/public/records/query", body: nil,
            as: .alice)
        #expect(get.status == 405, "\(get.json)")
        let unknownType = try await ws.post("records/query", ["query": ["recordType": "Nothing"]])
        #expect(unknownType.status == 404 && unknownType.json["serverErrorCode"] as? String == "NOT_FOUND")
    }
}
