import Foundation
import Stratus
import Testing

/// `stratus/operations/submit` decodes its body and the journal-encoded request as untrusted
/// input (decision 0014.8): every malformed submission is a 400 naming the problem, never a
/// 5xx, and the server keeps answering.
@Suite("stratusd: malformed long-lived submissions")
struct LongLivedBadInputTests {
    @Test func malformedBodiesAre400WithAReason() async throws {
        let ws = try WebServicesFixture()
        let valid = try LongLivedSubmission(encoding: LongLivedEndpointTests.modify(1))
        let request = Data(valid.request).base64EncodedString()
        let bodies: [(String, Any)] = [
            ("no request", ["operationID": "a", "operationClass": valid.operationClass, "isLongLived": true]),
            (
                "not base64",
                ["operationID": "a", "operationClass": valid.operationClass, "isLongLived": true, "request": "!!"]
            ),
            (
                "unknown class",
                ["operationID": "a", "operationClass": "CKNoSuchOperation", "isLongLived": true, "request": request]
            ),
            (
                "empty ID",
                ["operationID": "", "operationClass": valid.operationClass, "isLongLived": true, "request": request]
            ),
            (
                "control character",
                [
                    "operationID": "a\u{7}", "operationClass": valid.operationClass, "isLongLived": true,
                    "request": request,
                ]
            ),
            (
                "long ID",
                [
                    "operationID": String(repeating: "x", count: 300), "operationClass": valid.operationClass,
                    "isLongLived": true, "request": request,
                ]
            ),
            (
                "wrong type",
                ["operationID": 1, "operationClass": valid.operationClass, "isLongLived": true, "request": request]
            ),
            (
                "empty request",
                ["operationID": "a", "operationClass": valid.operationClass, "isLongLived": true, "request": ""]
            ),
            (
                "trailing bytes",
                [
                    "operationID": "a", "operationClass": valid.operationClass, "isLongLived": true,
                    "request": Data(valid.request + [0]).base64EncodedString(),
                ]
            ),
            (
                "another class's request",
                ["operationID": "a", "operationClass": "CKQueryOperation", "isLongLived": true, "request": request]
            ),
        ]
        for (name, body) in bodies {
            let answer = try await ws.post("stratus/operations/submit", body, database: "private")
            #expect(answer.status == 400, "\(name): \(answer.status) \(answer.json)")
            #expect(answer.json["serverErrorCode"] as? String == "BAD_REQUEST", "\(name)")
            #expect(!(answer.json["reason"] as? String ?? "").isEmpty, "\(name)")
        }
        let notJSON = try await ws.send(
            "POST", "database/1/\(WebServicesFixture.container)/development/private/stratus/operations/submit",
            body: Data("{".utf8), as: .alice)
        #expect(notJSON.status == 400)
        // A record with an asset would make the server read a file of its own: refused.
        let record = CKRecord(
            recordType: "Note", recordID: CKRecord.ID(recordName: "a", zoneID: LongLivedEndpointTests.zone))
        record["file"] = CKAsset(fileURL: URL(fileURLWithPath: "/etc/passwd"))
        let asset = try await ws.submit(
            CKModifyRecordsOperation(recordsToSave: [record], recordIDsToDelete: nil), id: "asset")
        #expect(asset.status == 400, "\(asset.json)")
        #expect(try await ws.listedOperations().isEmpty, "nothing was persisted")
    }

    @Test func aDeeplyNestedQueryPredicateIs400NotACrash() async throws {
        let ws = try WebServicesFixture()
        let query = CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        let valid = try LongLivedSubmission(encoding: query)
        let format = Array("TRUEPREDICATE".utf8)
        let at = try #require(
            (0...(valid.request.count - format.count)).first { Array(valid.request[$0..<$0 + format.count]) == format })
        // The format string is written as a varint length and its bytes: splice in another.
        let nested = Array(
            (String(repeating: "(", count: 100_000) + "TRUEPREDICATE" + String(repeating: ")", count: 100_000)).utf8)
        var length: [UInt8] = []
        var value = nested.count
        while value >= 0x80 {
            length.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        length.append(UInt8(value))
        let request = Array(valid.request[..<(at - 1)]) + length + nested + Array(valid.request[(at + format.count)...])
        let answer = try await ws.post(
            "stratus/operations/submit",
            [
                "operationID": "deep", "operationClass": valid.operationClass, "isLongLived": true,
                "request": Data(request).base64EncodedString(),
            ], database: "private")
        #expect(answer.status == 400, "\(answer.status) \(answer.json)")
        #expect(ws.server.process.isRunning)
    }

    @Test func mutatedRequestsNeverGetAServerError() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(LongLivedEndpointTests.zone.zoneName)
        var generator = SystemRandomNumberGenerator()
        let originals: [CKDatabaseOperation] = [
            LongLivedEndpointTests.modify(3), LongLivedEndpointTests.zoneChanges(pageSize: 2),
            CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(format: "title == %@", "x"))),
        ]
        var counts: [Int: Int] = [:]
        for round in 0..<240 {
            let original = try LongLivedSubmission(encoding: originals[round % originals.count])
            let mutated = Self.mutate(original.request, using: &generator)
            let answer = try await ws.post(
                "stratus/operations/submit",
                [
                    "operationID": "fuzz-\(round)", "operationClass": original.operationClass, "isLongLived": true,
                    "request": Data(mutated).base64EncodedString(),
                ], database: "private")
            counts[answer.status, default: 0] += 1
            #expect(
                answer.status == 200 || answer.status == 400,
                "round \(round): \(answer.status) \(answer.json) for \(mutated)")
        }
        print("long-lived submission fuzz: answers by status \(counts.sorted { $0.key < $1.key })")
        #expect(counts[400, default: 0] > 0, "some mutations were refused")
        let health = try await ws.request("GET", url: ws.server.baseURL.absoluteString + "/health")
        #expect(health.status == 200)
        #expect(ws.server.process.isRunning)
    }

    /// `bytes` with one to four random changes: a flipped byte, a cut, an inserted or a
    /// duplicated run.
    static func mutate(_ bytes: [UInt8], using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var result = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let at = result.isEmpty ? 0 : Int.random(in: 0..<result.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !result.isEmpty: result[at] = UInt8.random(in: 0...255, using: &generator)
            case 1: result = Array(result.prefix(at))
            case 2:
                result.insert(
                    contentsOf: (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }, at: at)
            default: result.insert(contentsOf: result[at..<min(result.count, at + 16)], at: at)
            }
        }
        return result
    }
}
