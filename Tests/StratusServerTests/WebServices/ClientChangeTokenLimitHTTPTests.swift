import Foundation
import Stratus
import StratusWebServices
import Testing

/// `clientChangeTokenData` over 16 KiB sent to a real `stratusd`, as JSON and in the binary
/// record encoding: the engine refuses the modify whole (decision 0004.12), which the server
/// answers 400 `BAD_REQUEST` (the error table's row for `limitExceeded`) naming the size, and
/// nothing is saved.
@Suite("stratusd: clientChangeTokenData over 16 KiB")
struct ClientChangeTokenLimitHTTPTests {
    static let zone = ["zoneName": "Tokens"]
    static let limit = Validation.maximumClientChangeTokenBytes

    /// A fixture whose Alice has the zone ``zone``.
    func fixture() async throws -> WebServicesFixture {
        let ws = try WebServicesFixture()
        let made = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Self.zone]]]],
            database: "private")
        #expect(made.status == 200, "\(made.json)")
        return ws
    }

    /// `records/modify` of a new note `name` in ``zone`` carrying `token`, as JSON.
    func save(_ name: String, token: Data, in ws: WebServicesFixture) async throws -> WebServicesFixture.Answer {
        let record: [String: Any] = ["recordName": name, "recordType": "Note", "fields": ["title": ["value": name]]]
        return try await ws.post(
            "records/modify",
            [
                "operations": [["operationType": "create", "record": record]], "zoneID": Self.zone,
                "clientChangeTokenData": token.base64EncodedString(),
            ], database: "private")
    }

    /// The answer's refusal: 400, `BAD_REQUEST`, `limitExceeded`, the size in the reason.
    func expectRefused(_ json: [String: Any], size: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(json["serverErrorCode"] as? String == "BAD_REQUEST", "\(json)", sourceLocation: sourceLocation)
        #expect(json["stratusErrorCode"] as? String == "limitExceeded", "\(json)", sourceLocation: sourceLocation)
        let reason = json["reason"] as? String ?? ""
        #expect(
            reason.contains("clientChangeTokenData holds \(size) bytes; the limit is \(Self.limit)"), "\(reason)",
            sourceLocation: sourceLocation)
        #expect((json["uuid"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    }

    /// Whether Alice's note `name` is stored.
    func exists(_ name: String, in ws: WebServicesFixture) async throws -> Bool {
        let answer = try await ws.post(
            "records/lookup", ["records": [["recordName": name]], "zoneID": Self.zone], database: "private")
        #expect(answer.status == 200, "\(answer.json)")
        return answer.records.first?["serverErrorCode"] == nil
    }

    @Test func aJSONModifyWithATokenPastTheLimitIsRefusedWholeAndSavesNothing() async throws {
        let ws = try await fixture()
        let refused = try await save("over", token: Data(count: Self.limit + 1), in: ws)
        #expect(refused.status == 400, "\(refused.json)")
        expectRefused(refused.json, size: Self.limit + 1)
        #expect(try await !exists("over", in: ws), "the refused modify saved nothing")
        let changes = try await ws.post("records/changes", ["zoneID": Self.zone], database: "private")
        #expect(changes.status == 200 && changes.json["clientChangeTokenData"] == nil, "\(changes.json)")

        // The limit itself is kept, and echoed by the zone's changes.
        let kept = Data(repeating: 7, count: Self.limit)
        let saved = try await save("at-limit", token: kept, in: ws)
        #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        let after = try await ws.post("records/changes", ["zoneID": Self.zone], database: "private")
        #expect(after.json["clientChangeTokenData"] as? String == kept.base64EncodedString())
    }

    @Test func aBinaryModifyWithATokenPastTheLimitIsRefusedWholeAndSavesNothing() async throws {
        let ws = try await fixture()
        let record = CKRecord(
            recordType: "Note", recordID: CKRecord.ID(recordName: "over", zoneID: CKRecordZone.ID(zoneName: "Tokens")))
        record["title"] = "over"
        var writer = StratusRecordEncoding.ModifyRequestWriter(
            atomic: true, clientChangeTokenData: Data(count: Self.limit + 1), count: 1)
        writer.save(record, operationType: "create", keys: ["title"], owner: CKCurrentUserDefaultName)
        let answer = try await ws.raw(
            "POST", "database/1/\(WebServicesFixture.container)/development/private/records/modify",
            body: Data(writer.bytes), as: .alice, headers: ["Content-Type": StratusRecordEncoding.mediaType])
        #expect(answer.status == 400, "\(String(decoding: answer.body, as: UTF8.self))")
        expectRefused(answer.json, size: Self.limit + 1)
        #expect(try await !exists("over", in: ws), "the refused modify saved nothing")
    }
}
