import Foundation
import Testing

/// `records/query` through a real `stratusd`: every comparator stratusd translates, sorts,
/// paging with `continuationMarker`, `desiredKeys`, `zoneWide`, and the refusals.
@Suite("stratusd: records/query")
struct QueryEndpointTests {
    /// Five fruits in the public database: name, n, tags, place, note.
    private static let fruits: [(String, String, Int, [String], (Double, Double), String)] = [
        ("a", "apple", 1, ["red", "fruit"], (0, 0), "bright red apple"),
        ("b", "banana", 2, ["yellow", "fruit"], (0, 0.5), "long yellow banana"),
        ("c", "cherry", 3, ["red", "small"], (10, 10), "small red cherry"),
        ("d", "date", 4, ["brown"], (0, 0.05), "sweet brown date"),
        ("e", "apricot", 5, ["orange", "fruit"], (20, 20), "orange apricot"),
    ]

    private func seedFruits(_ ws: WebServicesFixture) async throws {
        let operations = Self.fruits.map { fruit -> [String: Any] in
            let fields: [String: Any] = [
                "name": ["value": fruit.1], "n": ["value": fruit.2, "type": "INT64"],
                "tags": ["value": fruit.3, "type": "STRING_LIST"],
                "place": ["value": ["latitude": fruit.4.0, "longitude": fruit.4.1], "type": "LOCATION"],
                "note": ["value": fruit.5],
            ]
            return [
                "operationType": "create",
                "record": ["recordName": fruit.0, "recordType": "Fruit", "fields": fields],
            ]
        }
        let saved = try await ws.post("records/modify", ["operations": operations])
        #expect(saved.records.count == 5 && saved.records.allSatisfy { $0["serverErrorCode"] == nil }, "\(saved.json)")
    }

    private func names(_ answer: WebServicesFixture.Answer) -> [String] {
        answer.records.compactMap { $0["recordName"] as? String }
    }

    private static func filter(_ comparator: String, _ field: String, _ value: Any, type: String? = nil) -> [String:
        Any]
    {
        var fieldValue: [String: Any] = ["value": value]
        fieldValue["type"] = type
        return ["comparator": comparator, "fieldName": field, "fieldValue": fieldValue]
    }

    @Test func everySupportedComparatorFindsWhatItSays() async throws {
        let ws = try WebServicesFixture()
        try await seedFruits(ws)
        let near: [String: Any] = [
            "comparator": "NEAR", "fieldName": "place", "distance": 10_000,
            "fieldValue": ["value": ["latitude": 0, "longitude": 0], "type": "LOCATION"],
        ]
        let cases: [([String: Any], [String])] = [
            (Self.filter("EQUALS", "name", "banana"), ["b"]),
            (Self.filter("NOT_EQUALS", "name", "banana"), ["a", "c", "d", "e"]),
            (Self.filter("LESS_THAN", "n", 3), ["a", "b"]),
            (Self.filter("LESS_THAN_OR_EQUALS", "n", 3), ["a", "b", "c"]),
            (Self.filter("GREATER_THAN", "n", 3), ["d", "e"]),
            (Self.filter("GREATER_THAN_OR_EQUALS", "n", 3), ["c", "d", "e"]),
            (Self.filter("IN", "name", ["apple", "date"], type: "STRING_LIST"), ["a", "d"]),
            (Self.filter("NOT_IN", "name", ["apple", "date"]), ["b", "c", "e"]),
            (Self.filter("LIST_CONTAINS", "tags", "red"), ["a", "c"]),
            (Self.filter("NOT_LIST_CONTAINS", "tags", "red"), ["b", "d", "e"]),
            (Self.filter("LIST_CONTAINS_ANY", "tags", ["red", "brown"]), ["a", "c", "d"]),
            (Self.filter("NOT_LIST_CONTAINS_ANY", "tags", ["red", "brown"]), ["b", "e"]),
            (Self.filter("LIST_CONTAINS_ALL", "tags", ["red", "fruit"]), ["a"]),
            (Self.filter("BEGINS_WITH", "name", "ap"), ["a", "e"]),
            (Self.filter("NOT_BEGINS_WITH", "name", "ap"), ["b", "c", "d"]),
            (Self.filter("LIST_MEMBER_BEGINS_WITH", "tags", "ye"), ["b"]),
            (Self.filter("NOT_LIST_MEMBER_BEGINS_WITH", "tags", "ye"), ["a", "c", "d", "e"]),
            (near, ["a", "d"]),
            (Self.filter("CONTAINS_ANY_TOKENS", "note", "yellow cherry"), ["b", "c"]),
            (Self.filter("CONTAINS_ALL_TOKENS", "note", "red apple"), ["a"]),
            (["comparator": "EQUALS", "systemFieldName": "recordName", "fieldValue": ["value": "c"]], ["c"]),
        ]
        for (filter, expected) in cases {
            let answer = try await ws.post(
                "records/query", ["query": ["recordType": "Fruit", "filterBy": [filter]]], as: .anonymous)
            #expect(answer.status == 200, "\(filter): \(answer.json)")
            #expect(names(answer).sorted() == expected, "\(filter["comparator"] ?? "?"): \(answer.json)")
        }
        let both = try await ws.post(
            "records/query",
            [
                "query": [
                    "recordType": "Fruit",
                    "filterBy": [Self.filter("LIST_CONTAINS", "tags", "fruit"), Self.filter("GREATER_THAN", "n", 1)],
                ]
            ])
        #expect(names(both).sorted() == ["b", "e"], "filters are ANDed: \(both.json)")
    }

    @Test func sortsGoBothWaysAndByDistance() async throws {
        let ws = try WebServicesFixture()
        try await seedFruits(ws)
        func sorted(_ sort: [String: Any]) async throws -> [String] {
            let answer = try await ws.post("records/query", ["query": ["recordType": "Fruit", "sortBy": [sort]]])
            #expect(answer.status == 200, "\(answer.json)")
            return names(answer)
        }
        #expect(try await sorted(["fieldName": "n", "ascending": true]) == ["a", "b", "c", "d", "e"])
        #expect(try await sorted(["fieldName": "n", "ascending": false]) == ["e", "d", "c", "b", "a"])
        #expect(try await sorted(["fieldName": "name"]) == ["a", "e", "b", "c", "d"])
        let byDistance = try await sorted(
            ["fieldName": "place", "relativeLocation": ["latitude": 20, "longitude": 20]])
        #expect(byDistance == ["e", "c", "b", "d", "a"])
    }

    private func seedMany(_ ws: WebServicesFixture, count: Int) async throws {
        let operations = (0..<count).map { i -> [String: Any] in
            [
                "operationType": "create",
                "record": [
                    "recordName": String(format: "r%02d", i), "recordType": "Row",
                    "fields": ["n": ["value": (i * 7) % count], "label": ["value": "row \(i)"]],
                ],
            ]
        }
        let saved = try await ws.post("records/modify", ["operations": operations])
        #expect(saved.status == 200, "\(saved.json)")
    }

    private func allPages(_ ws: WebServicesFixture, _ body: [String: Any]) async throws -> ([String], Int) {
        var seen: [String] = []
        var pages = 0
        var marker: String?
        repeat {
            var request = body
            request["continuationMarker"] = marker
            let page = try await ws.post("records/query", request)
            #expect(page.status == 200, "\(page.json)")
            #expect(page.records.count <= 7)
            seen += names(page)
            marker = page.json["continuationMarker"] as? String
            pages += 1
        } while marker != nil && pages < 20
        return (seen, pages)
    }

    @Test func markersPageThroughEveryRecordOnce() async throws {
        try await pageThroughEveryRecord(try WebServicesFixture())
    }

    @Test func markersPageThroughEveryRecordOnceOnAPrivatePostgreSQL() async throws {
        let ws = try WebServicesFixture(postgres: true)
        try await pageThroughEveryRecord(ws)
        let subscribed = try await ws.post(
            "subscriptions/modify",
            [
                "operations": [
                    [
                        "operationType": "create",
                        "subscription": [
                            "subscriptionID": "rows", "subscriptionType": "query", "query": ["recordType": "Row"],
                        ],
                    ]
                ]
            ])
        #expect((subscribed.json["subscriptions"] as? [[String: Any]])?.first?["serverErrorCode"] == nil)
        let bobs = try await ws.post("subscriptions/list", [:] as [String: Any], as: .bob)
        #expect(bobs.status == 200 && (bobs.json["subscriptions"] as? [Any])?.isEmpty == true, "\(bobs.json)")
    }

    private func pageThroughEveryRecord(_ ws: WebServicesFixture) async throws {
        try await seedMany(ws, count: 25)
        let expected = (0..<25).map { String(format: "r%02d", $0) }
        let (unsorted, pages) = try await allPages(ws, ["query": ["recordType": "Row"], "resultsLimit": 7])
        #expect(unsorted.sorted() == expected, "no duplicates, none missed")
        #expect(pages == 4)
        let (sorted, _) = try await allPages(
            ws,
            ["query": ["recordType": "Row", "sortBy": [["fieldName": "n", "ascending": false]]], "resultsLimit": 7])
        #expect(sorted.count == 25 && Set(sorted).count == 25, "\(sorted)")
        let order = sorted.map { name in (Int(name.dropFirst())! * 7) % 25 }
        #expect(order == Array((0..<25).reversed()), "descending n across pages")
    }

    @Test func desiredKeysLimitTheFields() async throws {
        let ws = try WebServicesFixture()
        try await seedFruits(ws)
        let answer = try await ws.post(
            "records/query",
            ["query": ["recordType": "Fruit"], "desiredKeys": ["name"], "numbersAsStrings": true])
        #expect(answer.records.count == 5)
        for record in answer.records {
            #expect((record["fields"] as? [String: Any]).map { Array($0.keys) } == ["name"], "\(record)")
        }
    }

    private func seedZones(_ ws: WebServicesFixture) async throws {
        let zones = ["Z1", "Z2"].map { ["operationType": "create", "zone": ["zoneID": ["zoneName": $0]]] }
        let made = try await ws.post("zones/modify", ["operations": zones], database: "private")
        #expect(made.status == 200, "\(made.json)")
        for (zone, name) in [("Z1", "one"), ("Z2", "two")] {
            let saved = try await ws.post(
                "records/modify",
                [
                    "zoneID": ["zoneName": zone],
                    "operations": [
                        [
                            "operationType": "create",
                            "record": ["recordName": name, "recordType": "Note", "fields": [:]],
                        ]
                    ],
                ], database: "private")
            #expect(saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        }
    }

    @Test func zoneWideSearchesEveryZone() async throws {
        let ws = try WebServicesFixture()
        try await seedZones(ws)
        let wide = try await ws.post(
            "records/query", ["query": ["recordType": "Note"], "zoneWide": true], database: "private")
        #expect(names(wide).sorted() == ["one", "two"], "\(wide.json)")
        let zones = wide.records.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String }
        #expect(zones.sorted() == ["Z1", "Z2"])
        let one = try await ws.post(
            "records/query", ["query": ["recordType": "Note"], "zoneID": ["zoneName": "Z2"]], database: "private")
        #expect(names(one) == ["two"], "\(one.json)")
        let plain = try await ws.post("records/query", ["query": ["recordType": "Note"]], database: "private")
        #expect(plain.status == 200 && names(plain).isEmpty, "the default zone only: \(plain.json)")
    }

    @Test func aMarkerWorksOnlyForItsOwnUserAndUnaltered() async throws {
        let ws = try WebServicesFixture()
        try await seedZones(ws)
        let body: [String: Any] = ["query": ["recordType": "Note"], "zoneWide": true, "resultsLimit": 1]
        let first = try await ws.post("records/query", body, database: "private")
        let marker = try #require(first.json["continuationMarker"] as? String, "\(first.json)")
        var next = body
        next["continuationMarker"] = marker
        let own = try await ws.post("records/query", next, database: "private")
        #expect(own.status == 200 && names(own).count == 1 && names(own) != names(first), "\(own.json)")

        let bobs = try await ws.post("records/query", next, database: "private", as: .bob)
        #expect(bobs.status == 400, "\(bobs.json)")
        #expect(bobs.json["serverErrorCode"] as? String == "BAD_REQUEST")
        var tampered = Array(marker)
        let middle = tampered.count / 2
        tampered[middle] = tampered[middle] == "A" ? "B" : "A"
        next["continuationMarker"] = String(tampered)
        let altered = try await ws.post("records/query", next, database: "private")
        #expect(altered.status == 400, "\(altered.json)")
        next["continuationMarker"] = "not a marker!"
        let garbage = try await ws.post("records/query", next, database: "private")
        #expect(garbage.status == 400 && (garbage.json["reason"] as? String)?.contains("continuationMarker") == true)
    }

    @Test func anUnsupportedComparatorIsRefusedByName() async throws {
        let ws = try WebServicesFixture()
        try await seedFruits(ws)
        for comparator in ["NOT_LIST_CONTAINS_ALL", "SOUNDS_LIKE"] {
            let answer = try await ws.post(
                "records/query",
                ["query": ["recordType": "Fruit", "filterBy": [Self.filter(comparator, "tags", ["red"])]]])
            #expect(answer.status == 400, "\(answer.json)")
            let reason = answer.json["reason"] as? String ?? ""
            #expect(reason.contains(comparator) && reason.contains("filterBy[0]"), "\(reason)")
        }
        let noDistance = try await ws.post(
            "records/query",
            [
                "query": [
                    "recordType": "Fruit",
                    "filterBy": [Self.filter("NEAR", "place", ["latitude": 0, "longitude": 0], type: "LOCATION")],
                ]
            ])
        #expect(noDistance.status == 400 && (noDistance.json["reason"] as? String)?.contains("distance") == true)
    }

    /// A filter of more values than CloudKit allows (250), or of more than 64 KiB of strings,
    /// a query of more than 8 sorts or 1,000 desired keys, is refused before it is planned:
    /// each word of a token search and each value of a list is a group of an index to read
    /// and a test on every record (2,500 words once held a server thread for 48 seconds).
    @Test func aFilterOfMoreValuesThanCloudKitAllowsIsRefused() async throws {
        let ws = try WebServicesFixture()
        try await seedFruits(ws)
        let words = (0..<2_500).map { "w\($0)" }
        let tooMany: [[String: Any]] = [
            Self.filter("CONTAINS_ALL_TOKENS", "note", words.joined(separator: " ")),
            Self.filter("CONTAINS_ANY_TOKENS", "note", words.prefix(251).joined(separator: " ")),
            Self.filter("IN", "name", words.prefix(251).map { $0 }, type: "STRING_LIST"),
            Self.filter("LIST_CONTAINS_ANY", "tags", words.prefix(251).map { $0 }, type: "STRING_LIST"),
        ]
        for filter in tooMany {
            let answer = try await ws.post("records/query", ["query": ["recordType": "Fruit", "filterBy": [filter]]])
            #expect(answer.status == 400, "\(filter["comparator"] ?? ""): \(answer.json)")
            #expect(answer.json["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect(answer.json["stratusErrorCode"] as? String == "limitExceeded", "\(answer.json)")
            let reason = answer.json["reason"] as? String ?? ""
            #expect(reason.contains("limit of values: 250"), "\(reason)")
        }
        let equalities = (0..<251).map { Self.filter("NOT_EQUALS", "name", "w\($0)") }
        let many = try await ws.post("records/query", ["query": ["recordType": "Fruit", "filterBy": equalities]])
        #expect(many.status == 400 && many.json["stratusErrorCode"] as? String == "limitExceeded", "\(many.json)")
        // A token search's text is bounded too (64 KiB of strings), whatever its words.
        let longText = Self.filter("CONTAINS_ANY_TOKENS", "note", "x" + String(repeating: "!", count: 70_000))
        let long = try await ws.post("records/query", ["query": ["recordType": "Fruit", "filterBy": [longText]]])
        #expect(long.status == 400 && long.json["stratusErrorCode"] as? String == "limitExceeded", "\(long.json)")
        // More than 8 sorts, or 1,000 desired keys, are refused before any record is read.
        let sorts = Array(repeating: ["fieldName": "n"], count: 9)
        let sorted = try await ws.post("records/query", ["query": ["recordType": "Fruit", "sortBy": sorts]])
        #expect(sorted.status == 400 && sorted.json["stratusErrorCode"] as? String == "limitExceeded")
        #expect((sorted.json["reason"] as? String)?.contains("the limit is 8") == true, "\(sorted.json)")
        let keys = (0..<1_001).map { "k\($0)" }
        let wide = try await ws.post("records/query", ["query": ["recordType": "Fruit"], "desiredKeys": keys])
        #expect(wide.status == 400 && wide.json["stratusErrorCode"] as? String == "limitExceeded", "\(wide.json)")
        let changes = try await ws.post(
            "records/changes", ["zoneID": ["zoneName": "_defaultZone"], "desiredKeys": keys])
        #expect(
            changes.status == 400 && changes.json["stratusErrorCode"] as? String == "limitExceeded", "\(changes.json)")
        // At the limit, the filter runs.
        let atLimit = try await ws.post(
            "records/query",
            [
                "query": [
                    "recordType": "Fruit",
                    "filterBy": [
                        Self.filter("IN", "name", ["apple"] + words.prefix(249).map { $0 }, type: "STRING_LIST")
                    ],
                ]
            ])
        #expect(atLimit.status == 200, "\(atLimit.json)")
        #expect(names(atLimit) == ["a"])
    }

    @Test func anonymousCallersQueryThePublicDatabaseOnly() async throws {
        let ws = try WebServicesFixture()
        try await seedFruits(ws)
        let query: [String: Any] = ["query": ["recordType": "Fruit"]]
        let publicAnswer = try await ws.post("records/query", query, as: .anonymous)
        #expect(publicAnswer.status == 200 && names(publicAnswer).count == 5, "\(publicAnswer.json)")
        let privateAnswer = try await ws.post("records/query", query, database: "private", as: .anonymous)
        #expect(privateAnswer.status == 421, "\(privateAnswer.json)")
        #expect(privateAnswer.json["serverErrorCode"] as? String == "AUTHENTICATION_REQUIRED")
    }
}
