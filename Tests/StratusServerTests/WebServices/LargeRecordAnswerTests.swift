import Foundation
import Testing

/// Answers of large records through a real `stratusd`, in JSON: a `records/query` page ends at
/// the engine's 16 MiB of fields with a `continuationMarker`, whatever `resultsLimit` asks, and
/// the marker gives the rest (decision 0005, "Bytes per page"); a `records/lookup` whose
/// records hold more is refused with `limitExceeded`, as it has no marker (decision 0012.8).
@Suite("stratusd: answers of large records")
struct LargeRecordAnswerTests {
    /// Records `b00`…`b19` of type `Blob` in the public database, each with a BYTES field
    /// `data` of 900,000 bytes of its number and an INT64 `n`, 20 less its number.
    private func seedBlobs(_ ws: WebServicesFixture) async throws {
        for start in stride(from: 0, to: 20, by: 4) {
            let operations = (start..<start + 4).map { n -> [String: Any] in
                let data = Data(repeating: UInt8(n), count: 900_000).base64EncodedString()
                let fields: [String: Any] = [
                    "data": ["value": data, "type": "BYTES"], "n": ["value": 20 - n, "type": "INT64"],
                ]
                return [
                    "operationType": "create",
                    "record": ["recordName": String(format: "b%02d", n), "recordType": "Blob", "fields": fields],
                ]
            }
            let saved = try await ws.post("records/modify", ["operations": operations])
            #expect(saved.status == 200 && saved.records.allSatisfy { $0["serverErrorCode"] == nil }, "\(saved.json)")
        }
    }

    /// Every page of `body`, following `continuationMarker`: each page's records.
    private func pages(_ ws: WebServicesFixture, _ body: [String: Any]) async throws -> [[[String: Any]]] {
        var pages: [[[String: Any]]] = []
        var marker: String?
        repeat {
            var request = body
            request["continuationMarker"] = marker
            let page = try await ws.post("records/query", request)
            try #require(page.status == 200, "page \(pages.count + 1): \(page.json["reason"] ?? page.status)")
            pages.append(page.records)
            marker = page.json["continuationMarker"] as? String
        } while marker != nil && pages.count < 20
        return pages
    }

    @Test func aPageEndsAtSixteenMebibytesOfFields() async throws {
        let ws = try WebServicesFixture()
        try await seedBlobs(ws)
        let sorts: [(sortBy: [[String: Any]], order: [Int])] = [
            ([], Array(0..<20)), ([["fieldName": "n", "ascending": true]], Array((0..<20).reversed())),
        ]
        for (sortBy, order) in sorts {
            let query: [String: Any] = ["recordType": "Blob", "sortBy": sortBy]
            let all = try await pages(ws, ["query": query, "resultsLimit": 400])
            // 16 MiB ÷ 900,000 bytes: the 19th record takes the page past its budget.
            #expect(all.map(\.count) == [19, 1], "sorted by \(sortBy)")
            let records = all.flatMap { $0 }
            #expect(records.compactMap { $0["recordName"] as? String } == order.map { String(format: "b%02d", $0) })
            for (record, n) in zip(records, order) {
                let field = (record["fields"] as? [String: Any])?["data"] as? [String: Any]
                let bytes = (field?["value"] as? String).flatMap { Data(base64Encoded: $0) }
                #expect(bytes == Data(repeating: UInt8(n), count: 900_000), "b\(n)'s data, sorted by \(sortBy)")
            }

            let small = try await pages(ws, ["query": query, "resultsLimit": 400, "desiredKeys": ["n"]])
            #expect(small.map(\.count) == [20], "without the large field, sorted by \(sortBy)")
        }
    }

    @Test func aLookupPastSixteenMebibytesOfFieldsIsRefused() async throws {
        let ws = try WebServicesFixture()
        try await seedBlobs(ws)
        let all = (0..<20).map { ["recordName": String(format: "b%02d", $0)] }
        let refused = try await ws.post("records/lookup", ["records": all])
        #expect(refused.status == 400, "\(refused.json)")
        #expect(refused.json["stratusErrorCode"] as? String == "limitExceeded", "\(refused.json)")
        let reason = refused.json["reason"] as? String ?? ""
        #expect(reason.contains("16 MiB") && reason.contains("fewer records"), "\(reason)")

        let fitting = try await ws.post("records/lookup", ["records": Array(all.prefix(18))])
        #expect(fitting.status == 200 && fitting.records.count == 18, "\(fitting.json["reason"] ?? "")")
        #expect(fitting.records.allSatisfy { $0["serverErrorCode"] == nil })
        let small = try await ws.post("records/lookup", ["records": all, "desiredKeys": ["n"]])
        #expect(small.status == 200 && small.records.count == 20, "\(small.json["reason"] ?? "")")
    }
}
