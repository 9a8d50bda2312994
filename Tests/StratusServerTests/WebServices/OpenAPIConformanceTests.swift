import Foundation
import StratusServer
import StratusWebServices
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real `stratusd` responses checked against `Docs/stratusd.openapi.yaml` (through its JSON
/// copy): every served endpoint, its successes and its refusals, each body valid against the
/// schema documented for its path and status.
@Suite("Web Services: responses match the OpenAPI document", .serialized)
struct OpenAPIConformanceTests {
    /// One request to send.
    struct Exchange: Sendable {
        var method = "POST"
        var operation: String
        var body: String?
        var database = "public"
        var credentials: WebServicesFixture.Credentials = .alice
        var environment = "development"
    }

    static let everyType = #"""
        {"operations": [{"operationType": "create", "record": {"recordName": "all-types", "recordType": "Note",
         "fields": {"s": {"value": "text"}, "i": {"value": 7, "type": "INT64"}, "d": {"value": 1.5},
          "b": {"value": "AAEC", "type": "BYTES"}, "t": {"value": 1700000000000, "type": "TIMESTAMP"},
          "r": {"value": {"recordName": "other"}, "type": "REFERENCE"},
          "l": {"value": {"latitude": 1.5, "longitude": 2.5}, "type": "LOCATION"},
          "sl": {"value": ["a", "b"]}, "il": {"value": [1, 2]}, "dl": {"value": [1.5, 2]},
          "bl": {"value": ["AAEC"], "type": "BYTES_LIST"}, "tl": {"value": [1], "type": "TIMESTAMP_LIST"},
          "rl": {"value": [{"recordName": "x"}], "type": "REFERENCE_LIST"},
          "ll": {"value": [{"latitude": 1, "longitude": 2}], "type": "LOCATION_LIST"},
          "e": {"value": [], "type": "STRING_LIST"}}}},
         {"operationType": "create", "record": {"recordName": "to-delete", "recordType": "Note"}}]}
        """#

    /// Requests covering every served endpoint, in order (later ones see earlier writes).
    static let exchanges: [Exchange] = [
        Exchange(operation: "records/modify", body: everyType),
        Exchange(
            operation: "records/modify",
            body: #"{"numbersAsStrings": true, "operations": [{"operationType": "create", "record": "#
                + #"{"recordName": "all-types", "recordType": "Note"}}, {"operationType": "update", "record": "#
                + #"{"recordName": "all-types", "recordType": "Note", "recordChangeTag": "stale"}}, "#
                + #"{"operationType": "forceUpdate", "record": {"recordName": "all-types", "recordType": "Note", "#
                + #""fields": {"i": {"value": 8}}}}, {"operationType": "forceDelete", "record": "#
                + #"{"recordName": "to-delete"}}]}"#),
        Exchange(operation: "records/modify", body: #"{"operations": [{"operationType": "update", "record": {}}]}"#),
        Exchange(operation: "records/modify", body: #"{"operations": []"#),
        Exchange(
            operation: "records/modify",
            body: #"{"operations": [{"operationType": "forceUpdate", "record": {"recordName": "all-types", "#
                + #""recordType": "Note"}}]}"#, credentials: .bob),
        Exchange(
            operation: "records/modify",
            body: #"{"operations": [{"operationType": "create", "record": {"recordType": "Note"}}]}"#,
            credentials: .anonymous),
        Exchange(
            operation: "records/lookup",
            body: #"{"records": [{"recordName": "all-types"}, {"recordName": "missing"}]}"#, credentials: .anonymous),
        Exchange(
            operation: "records/lookup", body: #"{"records": [{"recordName": "all-types"}], "numbersAsStrings": true}"#),
        Exchange(operation: "records/lookup", body: #"{"records": "not a list"}"#),
        Exchange(operation: "records/lookup", body: #"{"records": []}"#, credentials: .none),
        Exchange(operation: "records/lookup", body: #"{"records": []}"#, credentials: .raw("ckAPIToken=00")),
        Exchange(operation: "records/lookup", body: #"{"records": []}"#, environment: "production"),
        Exchange(method: "GET", operation: "records/lookup"),
        Exchange(operation: "records/unknown", body: "{}"),
        Exchange(
            operation: "zones/modify",
            body: #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Z"}}}, "#
                + #"{"operationType": "delete", "zone": {"zoneID": {"zoneName": "gone"}}}]}"#, database: "private"),
        Exchange(
            operation: "records/modify",
            body: #"{"zoneID": {"zoneName": "Z"}, "operations": [{"operationType": "create", "record": "#
                + #"{"recordName": "in-z", "recordType": "Note", "fields": {"n": {"value": 1}}}}, "#
                + #"{"operationType": "create", "record": {"recordName": "gone", "recordType": "Note"}}]}"#,
            database: "private"),
        Exchange(
            operation: "records/modify",
            body: #"{"zoneID": {"zoneName": "Z"}, "operations": [{"operationType": "forceDelete", "record": "#
                + #"{"recordName": "gone"}}]}"#, database: "private"),
        Exchange(operation: "zones/list", database: "private"),
        Exchange(method: "GET", operation: "zones/list", database: "private"),
        Exchange(method: "GET", operation: "zones/list", credentials: .anonymous),
        Exchange(
            operation: "zones/lookup", body: #"{"zones": [{"zoneID": {"zoneName": "Z"}}, {"zoneName": "nope"}]}"#,
            database: "private"),
        Exchange(
            operation: "zones/modify", body: #"{"operations": [{"operationType": "rename"}]}"#, database: "private"),
        Exchange(operation: "records/changes", body: #"{"zoneID": {"zoneName": "Z"}}"#, database: "private"),
        Exchange(
            operation: "records/changes", body: #"{"zoneID": {"zoneName": "Z"}, "syncToken": "!!"}"#,
            database: "private"),
        Exchange(
            operation: "records/changes", body: #"{"zoneID": {"zoneName": "Z"}}"#, database: "shared",
            credentials: .anonymous),
        Exchange(
            operation: "changes/zone",
            body: #"{"zones": [{"zoneID": {"zoneName": "Z"}, "resultsLimit": 1}, {"zoneID": {"zoneName": "nope"}}]}"#,
            database: "private"),
        Exchange(operation: "changes/database", body: "{}", database: "private"),
        Exchange(operation: "changes/database", body: #"{"syncToken": "AAAA"}"#, database: "private"),
        Exchange(operation: "zones/changes", body: "{}", database: "private"),
        Exchange(operation: "zones/changes", body: #"{"resultsLimit": 0}"#, database: "private"),
        Exchange(
            operation: "records/query",
            body: #"{"query": {"recordType": "Note", "filterBy": [{"comparator": "EQUALS", "fieldName": "s", "#
                + #""fieldValue": {"value": "text"}}], "sortBy": [{"systemFieldName": "recordName"}]}, "#
                + #""numbersAsStrings": true}"#, credentials: .anonymous),
        Exchange(
            operation: "records/modify",
            body: #"{"operations": [{"operationType": "create", "record": {"recordName": "second", "#
                + #""recordType": "Note"}}]}"#),
        Exchange(
            operation: "records/query", body: #"{"query": {"recordType": "Note"}, "resultsLimit": 1}"#),
        Exchange(
            operation: "records/query", body: #"{"query": {"recordType": "Note"}, "zoneWide": true}"#,
            database: "private"),
        Exchange(
            operation: "records/query",
            body: #"{"query": {"recordType": "Note", "filterBy": [{"comparator": "SOUNDS_LIKE", "fieldName": "s", "#
                + #""fieldValue": {"value": "x"}}]}}"#),
        Exchange(operation: "records/query", body: #"{"query": {"recordType": "Note"}, "continuationMarker": "!"}"#),
        Exchange(
            operation: "records/query", body: #"{"query": {"recordType": "Note"}, "zoneID": {"zoneName": "nope"}}"#,
            database: "private"),
        Exchange(
            operation: "records/query", body: #"{"query": {"recordType": "Note"}}"#, database: "private",
            credentials: .anonymous),
        Exchange(method: "GET", operation: "users/caller"),
        Exchange(method: "GET", operation: "users/caller", credentials: .anonymous),
        Exchange(operation: "users/current", body: "{}", database: "private", credentials: .bob),
        Exchange(method: "PUT", operation: "users/current"),
        Exchange(
            operation: "subscriptions/modify",
            body: #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "q", "#
                + #""subscriptionType": "query", "query": {"recordType": "Note", "filterBy": ["#
                + #"{"comparator": "IN", "fieldName": "i", "fieldValue": {"value": [1, 2]}}, "#
                + #"{"comparator": "NEAR", "fieldName": "l", "distance": 500, "fieldValue": "#
                + #"{"value": {"latitude": 1.5, "longitude": 2.5}}}, "#
                + #"{"comparator": "EQUALS", "systemFieldName": "recordName", "fieldValue": {"value": "a"}}]}, "#
                + #""firesOn": ["create", "update"], "notificationInfo": {"alertBody": "new", "shouldBadge": true, "#
                + #""alertLocalizationArgs": ["x"]}}}, {"operationType": "create", "subscription": "#
                + #"{"subscriptionID": "z", "subscriptionType": "zone", "zoneID": {"zoneName": "Z"}}}, "#
                + #"{"operationType": "create", "subscription": {"subscriptionID": "d", "#
                + #""subscriptionType": "database"}}, {"operationType": "delete", "subscription": "#
                + #"{"subscriptionID": "never-saved"}}]}"#, database: "private"),
        Exchange(
            operation: "subscriptions/modify",
            body: #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "pub", "#
                + #""subscriptionType": "database"}}, {"operationType": "create", "subscription": "#
                + #"{"subscriptionID": "pq", "subscriptionType": "query", "query": {"recordType": "Note"}}}]}"#),
        Exchange(operation: "subscriptions/list", database: "private"),
        Exchange(method: "GET", operation: "subscriptions/list"),
        Exchange(
            operation: "subscriptions/lookup",
            body: #"{"subscriptions": [{"subscriptionID": "q"}, {"subscriptionID": "missing"}]}"#,
            database: "private"),
        Exchange(
            operation: "subscriptions/modify",
            body: #"{"operations": [{"operationType": "delete", "subscription": {"subscriptionID": "q"}}]}"#,
            database: "private"),
        Exchange(
            operation: "subscriptions/modify",
            body: #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "x", "#
                + #""subscriptionType": "sometimes"}}]}"#, database: "private"),
        Exchange(operation: "subscriptions/lookup", body: #"{"subscriptions": [{}]}"#),
        Exchange(method: "GET", operation: "subscriptions/list", credentials: .anonymous),
        Exchange(method: "GET", operation: "subscriptions/lookup", database: "private"),
        Exchange(
            operation: "assets/upload",
            body: #"{"tokens": [{"recordName": "a", "recordType": "Note", "fieldName": "file"}, "#
                + #"{"recordType": "Note", "fieldName": "other"}]}"#),
        Exchange(
            operation: "assets/upload",
            body: #"{"zoneID": {"zoneName": "Z"}, "tokens": [{"recordType": "Note", "fieldName": "f"}]}"#,
            database: "private"),
        Exchange(operation: "assets/upload", body: #"{"tokens": []}"#),
        Exchange(operation: "assets/upload", body: #"{"tokens": [{"recordType": "", "fieldName": "f"}]}"#),
        Exchange(
            operation: "assets/upload", body: #"{"tokens": [{"recordType": "Note", "fieldName": "f"}]}"#,
            credentials: .anonymous),
        // tokens/create has no {database} segment.
        Exchange(operation: "tokens/create", body: #"{"apnsEnvironment": "production"}"#, database: ""),
        Exchange(operation: "tokens/create", body: "", database: ""),
        Exchange(operation: "tokens/create", body: #"{"apnsEnvironment": "sandbox"}"#, database: ""),
        Exchange(operation: "tokens/create", body: "{}", database: "", credentials: .anonymous),
        Exchange(method: "GET", operation: "tokens/create", database: ""),
        // Long-lived operations (decision 0014.8–9): submit, list, events, delivered, cancel.
        Exchange(
            operation: "stratus/operations/submit", body: LongLivedExamples.fetchZonesBody(id: "conformance"),
            database: "private"),
        Exchange(operation: "stratus/operations/submit", body: "{}", database: "private"),
        Exchange(
            operation: "stratus/operations/submit", body: LongLivedExamples.fetchZonesBody(id: "anonymous"),
            credentials: .anonymous),
        Exchange(method: "GET", operation: "stratus/operations", database: "private"),
        Exchange(method: "GET", operation: "stratus/operations/conformance/events", database: "private"),
        Exchange(operation: "stratus/operations/conformance/delivered", body: "{}", database: "private"),
        Exchange(operation: "stratus/operations/missing/cancel", body: "{}", database: "private"),
        Exchange(operation: "stratus/operations/conformance/cancel", body: "{}", database: "private"),
        Exchange(method: "DELETE", operation: "stratus/operations", database: "private"),
    ]

    @Test func everyResponseMatchesTheDocument() async throws {
        let document = try OpenAPIDocument.load()
        let fixture = try WebServicesFixture()
        var covered: Set<String> = []
        // The kinds of subscription entries seen in 200s: saved, deleted, error.
        var subscriptionEntries: Set<String> = []
        var continuationMarkers = 0
        for exchange in Self.exchanges {
            let path =
                ["database/1", WebServicesFixture.container, exchange.environment, exchange.database]
                .filter { !$0.isEmpty }.joined(separator: "/") + "/" + exchange.operation
            let answer = try await fixture.raw(
                exchange.method, path, body: exchange.body.map { Data($0.utf8) }, as: exchange.credentials)
            try check(answer, exchange.method, "/" + path, document)
            covered.insert("\(exchange.method) \(document.template(for: "/" + path) ?? path) \(answer.status)")
            if answer.status == 200, try JSONValue.parse(answer.body)["continuationMarker"] != nil {
                continuationMarkers += 1
            }
            if answer.status == 200, case .array(let items)? = try JSONValue.parse(answer.body)["subscriptions"] {
                for item in items {
                    subscriptionEntries.insert(
                        item["serverErrorCode"] != nil ? "error" : item["deleted"] != nil ? "deleted" : "saved")
                }
            }
        }
        #expect(subscriptionEntries == ["saved", "deleted", "error"], "\(subscriptionEntries)")
        #expect(continuationMarkers > 0, "no records/query page with a continuationMarker was checked")
        // Over the 16 MiB body limit: 413, answered before parsing.
        let large = "/database/1/\(WebServicesFixture.container)/development/public/records/lookup"
        let tooLarge = try await fixture.raw(
            "POST", String(large.dropFirst()), body: Data(count: (16 << 20) + 1), as: .alice)
        #expect(tooLarge.status == 413)
        try check(tooLarge, "POST", large, document)
        covered.insert("POST \(large) \(tooLarge.status)")
        // The long-poll of a courier token from tokens/create, never waiting (timeout=0).
        let made = try await fixture.raw(
            "POST", "database/1/\(WebServicesFixture.container)/development/tokens/create", body: nil, as: .alice)
        guard case .string(let courier)? = try JSONValue.parse(made.body)["webcourierURL"],
            let courierPath = URL(string: courier)?.path
        else {
            Issue.record("tokens/create answered no webcourierURL: \(String(decoding: made.body, as: UTF8.self))")
            return
        }
        for (query, status) in [("?timeout=0", 200), ("?timeout=0&limit=0", 400), ("?timeout=0&after=-1", 400)] {
            let polled = try await fixture.request("GET", url: courier + query)
            #expect(polled.status == status, "GET \(courierPath)\(query) → \(polled.status)")
            try check(polled, "GET", courierPath, document)
            covered.insert("GET /notifications/1/{token} \(polled.status)")
        }
        let unknown = try await fixture.request("GET", url: courier + "x?timeout=0")
        #expect(unknown.status == 401)
        try check(unknown, "GET", courierPath + "x", document)
        covered.insert("GET /notifications/1/{token} \(unknown.status)")
        try await checkAcknowledgementsAndEvents(courier: courier, fixture, document, &covered)
        // An upload URL of assets/upload: the bytes → the receipt; a changed signature → 401; a
        // download ticket that does not verify → 401.
        let asked = try await fixture.raw(
            "POST", "database/1/\(WebServicesFixture.container)/development/public/assets/upload",
            body: Data(#"{"tokens": [{"recordType": "Note", "fieldName": "file"}]}"#.utf8), as: .alice)
        guard case .array(let tokens)? = try JSONValue.parse(asked.body)["tokens"],
            case .string(let uploadURL)? = tokens.first?["url"], let uploadPath = URL(string: uploadURL)?.path
        else {
            Issue.record("assets/upload answered no url: \(String(decoding: asked.body, as: UTF8.self))")
            return
        }
        let uploaded = try await fixture.request("POST", url: uploadURL, body: Data("bytes".utf8))
        #expect(uploaded.status == 200)
        try check(uploaded, "POST", uploadPath, document)
        #expect(try JSONValue.parse(uploaded.body)["singleFile"]?["size"] == .integer(5))
        let forged = try await fixture.request("POST", url: uploadURL + "0", body: Data("bytes".utf8))
        #expect(forged.status == 401)
        try check(forged, "POST", uploadPath, document)
        let download = try await fixture.request(
            "GET", url: fixture.server.baseURL.absoluteString + "/assets/1/download/x?e=1&s=0")
        #expect(download.status == 401)
        try check(download, "GET", "/assets/1/download/x", document)
        let health = try await fixture.raw("GET", "health", body: nil, as: .none)
        try check(health, "GET", "/health", document)
        for served in [
            "records/modify", "records/lookup", "records/changes", "changes/zone", "changes/database",
            "zones/changes", "zones/lookup", "zones/modify", "zones/list", "records/query", "users/caller",
            "users/current", "subscriptions/list", "subscriptions/lookup", "subscriptions/modify",
            "assets/upload", "tokens/create", "{token}/ack", "{token}/events", "stratus/operations/submit",
            "stratus/operations", "stratus/operations/{operationID}/events",
            "stratus/operations/{operationID}/delivered", "stratus/operations/{operationID}/cancel",
        ] {
            #expect(covered.contains { $0.contains("/\(served) 200") }, "no 200 of \(served) was checked")
        }
        for status in [400, 401, 404, 405, 413, 421] {
            #expect(covered.contains { $0.hasSuffix(" \(status)") }, "no \(status) was checked")
        }
        for (method, refusal) in [
            ("POST", "/assets/upload 400"), ("POST", "/assets/upload 421"), ("POST", "/tokens/create 400"),
            ("POST", "/tokens/create 421"), ("GET", "/tokens/create 405"),
        ] {
            #expect(
                covered.contains { $0.hasPrefix(method + " ") && $0.hasSuffix(refusal) },
                "no \(method) \(refusal) was checked")
        }
    }

    /// The courier's acknowledgement (200, a bad body's 400, an unknown token's 401) and event
    /// stream (an unknown token's 401, a bad position's 400, and the stream's content type).
    private func checkAcknowledgementsAndEvents(
        courier: String, _ fixture: WebServicesFixture, _ document: OpenAPIDocument, _ covered: inout Set<String>
    ) async throws {
        let path = try #require(URL(string: courier)?.path)
        for (suffix, body, status) in [
            ("/ack", #"{"position": 0}"#, 200), ("/ack", #"{"position": -1}"#, 400), ("/ack", "[]", 400),
            ("x/ack", #"{"position": 0}"#, 401),
        ] {
            let answer = try await fixture.request("POST", url: courier + suffix, body: Data(body.utf8))
            #expect(answer.status == status, "POST \(path)\(suffix) \(body) → \(answer.status)")
            try check(answer, "POST", path + suffix, document)
            covered.insert("POST /notifications/1/{token}/ack \(answer.status)")
        }
        for (suffix, status) in [("x/events", 401), ("/events?after=-1", 400), ("/events?after=x", 400)] {
            let answer = try await fixture.request("GET", url: courier + suffix)
            #expect(answer.status == status, "GET \(path)\(suffix) → \(answer.status)")
            try check(answer, "GET", path + suffix.prefix { $0 != "?" }, document)
            covered.insert("GET /notifications/1/{token}/events \(answer.status)")
        }
        // The stream itself never ends by itself: read its head for a second.
        let head = try fixture.readEvents(String(path.dropFirst()) + "/events", seconds: 1, headers: true)
        #expect(head.lowercased().contains("content-type: text/event-stream"), "\(head)")
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        _ = try document.operation("GET", path + "/events")
        covered.insert("GET /notifications/1/{token}/events 200")
    }

    /// Expects `answer`'s body to be JSON valid against the document's schema for its status.
    private func check(
        _ answer: WebServicesFixture.RawAnswer, _ method: String, _ path: String, _ document: OpenAPIDocument
    )
        throws
    {
        let label = "\(method) \(path) → \(answer.status)"
        #expect(answer.contentType?.hasPrefix("application/json") == true, "\(label): \(answer.contentType ?? "none")")
        // A path or method the document does not list is the server's 404 or 405 (no operation).
        let documented = (try? document.operation(method, path)) != nil
        #expect(documented || [404, 405].contains(answer.status), "\(label): an undocumented operation answered")
        let schema =
            documented
            ? try document.responseSchema(method, path, status: answer.status)
            : ["$ref": "#/components/schemas/ErrorDictionary"]
        let body = try JSONValue.parse(answer.body)
        let problems = document.problems(body, schema)
        #expect(
            problems.isEmpty,
            "\(label): \(problems.joined(separator: "; ")) in \(String(decoding: answer.body, as: UTF8.self))")
    }

    @Test func theCheckerRefusesWhatTheDocumentForbids() throws {
        let document = try OpenAPIDocument.load()
        let schema = try document.responseSchema(
            "POST", "/database/1/c/development/public/records/lookup", status: 200)
        let record: JSONValue = [
            "recordName": "a", "recordType": "T", "zoneID": ["zoneName": "_defaultZone", "ownerRecordName": "o"],
            "fields": ["n": ["value": 1, "type": "INT64"]], "deleted": false,
        ]
        #expect(document.problems(["records": [record]], schema).isEmpty)
        var wrongTag = record
        wrongTag = .object(
            record.objectMembers.merging(["fields": ["n": ["value": "x", "type": "INT64"]]]) { $1 })
        #expect(!document.problems(["records": [wrongTag]], schema).isEmpty, "INT64 with a non-numeric string")
        let unknownKey: JSONValue = .object(record.objectMembers.merging(["secret": "x"]) { $1 })
        #expect(!document.problems(["records": [unknownKey]], schema).isEmpty, "an undocumented key")
        let badCode: JSONValue = ["recordName": "a", "serverErrorCode": "OOPS", "reason": "r", "uuid": "u"]
        #expect(!document.problems(["records": [badCode]], schema).isEmpty, "a code outside Apple's 14")
        let subscriptions = try document.responseSchema(
            "POST", "/database/1/c/development/private/subscriptions/modify", status: 200)
        let saved: JSONValue = ["subscriptionID": "s", "subscriptionType": "database"]
        #expect(
            document.problems(["subscriptions": [saved, ["subscriptionID": "s", "deleted": true]]], subscriptions)
                .isEmpty)
        let savedAndFailed: JSONValue = .object(
            saved.objectMembers.merging(["serverErrorCode": "NOT_FOUND", "reason": "r", "uuid": "u"]) { $1 })
        #expect(!document.problems(["subscriptions": [savedAndFailed]], subscriptions).isEmpty, "two shapes at once")
        #expect(
            !document.problems(["subscriptions": [["subscriptionID": "s", "subscriptionType": "push"]]], subscriptions)
                .isEmpty)
        #expect(throws: OpenAPIDocument.Missing.self) {
            try document.responseSchema("POST", "/database/1/c/development/public/records/lookup", status: 418)
        }
    }
}

extension JSONValue {
    /// An object's members; empty for any other value.
    fileprivate var objectMembers: [String: JSONValue] {
        if case .object(let members) = self { return members }
        return [:]
    }
}
