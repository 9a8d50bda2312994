import Foundation
import StratusBackend
import StratusSQLite
import StratusTestSupport
import Testing

/// A change-log entry damaged on disk in a way the change read accepts (its structure is whole)
/// but the answer's writer refuses (a number of an unknown kind): the `records/changes` answer
/// stops where the entry is and nothing else is affected (`ChangesAnswerStream`).
@Suite("stratusd: a damaged change entry")
struct DamagedChangeEntryTests {
    static var zone: [String: Any] { ["zoneName": "Notes"] }
    static let recordCount = 300
    /// The record whose entry is damaged: in the answer's second piece (pieces of 200).
    static let damaged = 230

    /// Record `i`'s number: a value whose bytes occur nowhere else in the store.
    static func number(_ i: Int) -> Int64 { 7_000_000_000 + Int64(i) }

    @Test func aDamagedEntryCutsOnlyTheAnswerThatReachesIt() async throws {
        let ws = try WebServicesFixture()
        try await saveRecords(ws)
        #expect(ws.server.stop() == 0, "stratusd stopped cleanly: \(ws.server.standardError.suffix(2_000))")
        let damagedValues = try damageNumberKind(
            of: Self.number(Self.damaged), in: ws.directory.appending(".stratus/stratus.sqlite").path)
        #expect(damagedValues >= 1, "the record's entry was found in the store")

        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments, directory: ws.directory)
        defer { _ = restarted.stop() }
        let cut = try changesAnswer(ws, at: restarted.baseURL, resultsLimit: 300)
        #expect(cut.closed, "the server closed the connection after the answer's first piece")
        let text = String(decoding: cut.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200"), "\(text.prefix(300))")
        #expect(text.lowercased().contains("transfer-encoding: chunked"))
        #expect(text.contains("\"r1199\""), "the first piece, records 0–199, was sent whole")
        #expect(!text.contains("\"r1200\""), "nothing of the piece holding the damaged entry was sent")
        #expect(!text.hasSuffix("0\r\n\r\n"), "the answer was not ended as if it were whole")
        #expect(
            restarted.standardError.contains("change answer cut: a stored change could not be written"),
            "the cut is logged: \(restarted.standardError.suffix(2_000))")

        #expect(try await ws.request("GET", url: restarted.baseURL.absoluteString + "/health").status == 200)
        let first = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "resultsLimit": 200], database: "private",
            at: restarted.baseURL)
        #expect(first.status == 200 && first.records.count == 200, "a page before the entry still reads whole")
        let token = try #require(first.json["syncToken"] as? String)
        let after = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": token, "resultsLimit": 20], database: "private",
            at: restarted.baseURL)
        #expect(after.status == 200 && after.records.count == 20, "records 200–219 still read")
        let reaching = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": token, "resultsLimit": 50], database: "private",
            at: restarted.baseURL)
        #expect(reaching.status == 500, "an answer of one piece that reaches the entry is refused whole")
        #expect(reaching.json["serverErrorCode"] as? String == "INTERNAL_ERROR", "\(reaching.json)")
        let uuid = try #require(reaching.json["uuid"] as? String)
        let early = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "resultsLimit": 50], database: "private", at: restarted.baseURL)
        let earlyToken = try #require(early.json["syncToken"] as? String)
        let longFromThere = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": earlyToken, "resultsLimit": 300],
            database: "private", at: restarted.baseURL)
        #expect(
            longFromThere.status == 500 && longFromThere.json["serverErrorCode"] as? String == "INTERNAL_ERROR",
            "an answer in pieces whose first piece (records 50–249) reaches the entry is refused whole")
        let failure = restarted.standardError.split(separator: "\n").first { $0.contains("internal failure") }
        #expect(failure?.contains(uuid) == true, "the log names the refused request: \(failure ?? "no line")")
        #expect(
            reaching.json["reason"] as? String == "the server failed; its log has the details under this request's uuid"
        )
    }

    /// A zone of ``recordCount`` records, `r1000`…, each with its ``number(_:)``.
    private func saveRecords(_ ws: WebServicesFixture) async throws {
        let made = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Self.zone]]]],
            database: "private")
        #expect(made.status == 200, "\(made.json)")
        let operations = (0..<Self.recordCount).map { i -> [String: Any] in
            [
                "operationType": "create",
                "record": [
                    "recordName": "r\(1000 + i)", "recordType": "Note",
                    "fields": ["title": ["value": "note \(i)"], "n": ["value": Self.number(i), "type": "INT64"]],
                ],
            ]
        }
        let saved = try await ws.post(
            "records/modify", ["operations": operations, "zoneID": Self.zone], database: "private")
        #expect(saved.status == 200 && saved.records.allSatisfy { $0["serverErrorCode"] == nil }, "\(saved.json)")
    }

    /// Sets the kind byte of every stored integer holding `number` to a kind that does not
    /// exist, leaving the value's length and the entry's structure as they were; the count of
    /// values changed.
    private func damageNumberKind(of number: Int64, in path: String) throws -> Int {
        let backend = try SQLiteBackend(configuration: .init(location: .file(path: path)))
        defer { try? backend.close() }
        let patterns = [
            withUnsafeBytes(of: number.littleEndian, Array.init), withUnsafeBytes(of: number.bigEndian, Array.init),
        ]
        return try backend.write { txn in
            var changed = 0
            let everything = KeyRange(from: [], to: [UInt8](repeating: 0xFF, count: 64))
            for pair in try txn.scan(everything, limit: Int.max, reverse: false) {
                var value = pair.value
                var found = false
                for start in value.indices.dropLast(9) where value[start] == 2 {
                    let numberBytes = Array(value[(start + 2)..<(start + 10)])
                    if patterns.contains(numberBytes) {
                        value[start + 1] = 0xEE
                        found = true
                    }
                }
                if found {
                    try txn.set(pair.key, value)
                    changed += 1
                }
            }
            return changed
        }
    }

    /// A `records/changes` request sent on a connection of its own, read until the server
    /// closes it (or 10 s pass without a byte).
    private func changesAnswer(_ ws: WebServicesFixture, at baseURL: URL, resultsLimit: Int) throws -> (
        bytes: [UInt8], closed: Bool
    ) {
        let body = String(
            decoding: try JSONSerialization.data(withJSONObject: ["zoneID": Self.zone, "resultsLimit": resultsLimit]),
            as: UTF8.self)
        let path =
            "/database/1/\(WebServicesFixture.container)/development/private/records/changes"
            + "?ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(ws.aliceSession)"
        let connection = try RawConnection(port: try #require(baseURL.port))
        connection.send(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return connection.receiveUntilClose(timeout: 10)
    }
}
