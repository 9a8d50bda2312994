import Crypto
import Foundation
import StratusServer
import Testing

/// Assets through a real `stratusd` (decision 0012.8): `assets/upload`, the upload URL, the
/// receipt in `records/modify`, the download URL in fetched records; receipts and URLs bound
/// to their database and refused when altered or expired; the size limit; content removed with
/// its record.
@Suite("stratusd: assets")
struct AssetEndpointTests {
    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    static func create(_ name: String, fields: [String: Any]) -> [String: Any] {
        [
            "operations": [
                ["operationType": "create", "record": ["recordName": name, "recordType": "Photo", "fields": fields]]
            ]
        ]
    }

    @Test func anUploadIsSavedFetchedDownloadedAndGoesWithItsRecord() async throws {
        let ws = try WebServicesFixture()
        let content = Self.bytes(5000)
        let singleFile = try await ws.upload(content)
        #expect(singleFile["fileChecksum"] as? String == Data(SHA256.hash(data: content)).base64EncodedString())
        #expect((singleFile["size"] as? NSNumber)?.intValue == 5000)
        #expect((singleFile["receipt"] as? String)?.isEmpty == false)

        let saved = try await ws.post(
            "records/modify", Self.create("p1", fields: ["photo": ["value": singleFile, "type": "ASSET"]]),
            database: "private")
        #expect(saved.status == 200, "\(saved.json)")
        #expect(saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")

        let read = try await ws.post("records/lookup", ["records": [["recordName": "p1"]]], database: "private")
        let photo = try #require((read.records.first?["fields"] as? [String: [String: Any]])?["photo"], "\(read.json)")
        #expect(photo["type"] as? String == "ASSET")
        let value = try #require(photo["value"] as? [String: Any])
        #expect(value["fileChecksum"] as? String == singleFile["fileChecksum"] as? String)
        #expect((value["size"] as? NSNumber)?.intValue == 5000)
        let downloadURL = try #require(value["downloadURL"] as? String)
        #expect(downloadURL.hasPrefix(ws.server.baseURL.absoluteString + "/assets/1/download/"))

        let downloaded = try await ws.request("GET", url: downloadURL)
        #expect(downloaded.status == 200)
        #expect(downloaded.body == content, "the exact bytes, with no credentials")

        let deleted = try await ws.post(
            "records/modify",
            ["operations": [["operationType": "forceDelete", "record": ["recordName": "p1"]]]], database: "private")
        #expect(deleted.status == 200 && deleted.records.first?["serverErrorCode"] == nil, "\(deleted.json)")
        let gone = try await ws.request("GET", url: downloadURL)
        #expect(gone.status == 404, "deleting the record removes its content")
        #expect(gone.json["serverErrorCode"] as? String == "NOT_FOUND")
    }

    @Test func aChangeFeedCarriesDownloadURLs() async throws {
        let ws = try WebServicesFixture()
        let zone = ["zoneName": "Photos"]
        let made = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": zone]]]],
            database: "private")
        #expect(made.status == 200, "\(made.json)")
        let content = Self.bytes(64)
        let singleFile = try await ws.upload(content)
        var body = Self.create("p2", fields: ["photo": ["value": singleFile]])
        body["zoneID"] = zone
        let saved = try await ws.post("records/modify", body, database: "private")
        #expect(saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")

        let changes = try await ws.post("records/changes", ["zoneID": zone], database: "private")
        let changed = (changes.records.first?["fields"] as? [String: [String: Any]])?["photo"]?["value"]
        let url = try #require((changed as? [String: Any])?["downloadURL"] as? String, "\(changes.json)")
        #expect(try await ws.request("GET", url: url).body == content)
    }

    @Test func anAssetListIsSavedAndEachItemDownloads() async throws {
        let ws = try WebServicesFixture()
        let urls = try await ws.uploadURLs(fields: ["album", "album"], database: "public")
        #expect(urls.count == 2)
        let contents = [Self.bytes(10, seed: 1), Self.bytes(20, seed: 2)]
        var files: [[String: Any]] = []
        for (url, content) in zip(urls, contents) {
            let answer = try await ws.request("POST", url: url, body: content)
            files.append(try #require(answer.json["singleFile"] as? [String: Any], "\(answer.status) \(answer.json)"))
        }
        let saved = try await ws.post(
            "records/modify", Self.create("album-1", fields: ["album": ["value": files, "type": "ASSET_LIST"]]))
        #expect(saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")

        let read = try await ws.post("records/lookup", ["records": [["recordName": "album-1"]]], as: .anonymous)
        let album = try #require((read.records.first?["fields"] as? [String: [String: Any]])?["album"], "\(read.json)")
        #expect(album["type"] as? String == "ASSET_LIST")
        let items = try #require(album["value"] as? [[String: Any]])
        #expect(items.count == 2)
        for (item, content) in zip(items, contents) {
            #expect((item["size"] as? NSNumber)?.intValue == content.count)
            let downloaded = try await ws.request("GET", url: try #require(item["downloadURL"] as? String))
            #expect(downloaded.body == content)
        }
    }

    /// An upload serves one request: a receipt saved again by a later request is refused
    /// instead of copying its content, and one request may copy its uploads 400 times (a
    /// list of 60,000 copies of one receipt would have written 60,000 copies of a 50 MiB
    /// upload from a 16 MiB request). Within those bounds, each further asset gets a copy.
    @Test func aReceiptServesOneRequestAndIsNotMultipliedWithoutBound() async throws {
        let ws = try WebServicesFixture()
        let first = try await ws.upload(Self.bytes(300, seed: 3))
        let saved = try await ws.post(
            "records/modify", Self.create("once", fields: ["photo": ["value": first, "type": "ASSET"]]),
            database: "private")
        #expect(saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        let again = try await ws.post(
            "records/modify", Self.create("again", fields: ["photo": ["value": first, "type": "ASSET"]]),
            database: "private")
        #expect(again.status == 200)
        #expect(again.records.first?["serverErrorCode"] as? String == "BAD_REQUEST", "\(again.json)")
        #expect(
            (again.records.first?["reason"] as? String)?.contains("already saved in a record by an earlier request")
                == true, "\(again.json)")

        let second = try await ws.upload(Self.bytes(200, seed: 4))
        let tooMany = try await ws.post(
            "records/modify",
            Self.create(
                "many", fields: ["album": ["value": Array(repeating: second, count: 402), "type": "ASSET_LIST"]]),
            database: "private")
        #expect(tooMany.records.first?["serverErrorCode"] as? String == "BAD_REQUEST", "\(tooMany.json)")
        #expect(tooMany.records.first?["stratusErrorCode"] as? String == "limitExceeded")
        #expect(
            (tooMany.records.first?["reason"] as? String)?.contains(
                "would be copy 401 of an upload in this request; a request may use its uploads 400 times more than once"
            )
                == true, "\(tooMany.json)")

        // Refused, the request stored nothing: the upload serves the next one, three times.
        let three = try await ws.post(
            "records/modify",
            Self.create("three", fields: ["album": ["value": [second, second, second], "type": "ASSET_LIST"]]),
            database: "private")
        #expect(three.records.first?["serverErrorCode"] == nil, "\(three.json)")
        let read = try await ws.post(
            "records/lookup", ["records": [["recordName": "three"], ["recordName": "many"]]], database: "private")
        #expect(read.records.last?["serverErrorCode"] as? String == "NOT_FOUND")
        let album = (read.records.first?["fields"] as? [String: [String: Any]])?["album"]?["value"] as? [[String: Any]]
        #expect(album?.count == 3)
        for item in album ?? [] {
            let downloaded = try await ws.request("GET", url: try #require(item["downloadURL"] as? String))
            #expect(downloaded.body == Self.bytes(200, seed: 4))
        }
    }

    @Test func aReceiptWorksOnlyInTheDatabaseItWasUploadedTo() async throws {
        let ws = try WebServicesFixture()
        let alices = try await ws.upload(Self.bytes(100))
        let body = Self.create("stolen", fields: ["photo": ["value": alices, "type": "ASSET"]])
        for (database, credentials) in [("private", WebServicesFixture.Credentials.bob), ("public", .alice)] {
            let refused = try await ws.post("records/modify", body, database: database, as: credentials)
            #expect(refused.status == 400, "\(database): \(refused.json)")
            let reason = refused.json["reason"] as? String ?? ""
            #expect(reason.contains("Field 'photo'") && reason.contains("another database"), "\(reason)")
        }
        let lookup = try await ws.post(
            "records/lookup", ["records": [["recordName": "stolen"]]], database: "private", as: .bob)
        #expect(lookup.records.first?["serverErrorCode"] as? String == "NOT_FOUND", "nothing was saved")

        var altered = alices
        // A character in the middle, changed for another: the last one of unpadded base64 may
        // carry only unused bits, and may already be the replacement.
        var receipt = Array(alices["receipt"] as? String ?? "")
        let middle = receipt.count / 2
        receipt[middle] = receipt[middle] == "A" ? "B" : "A"
        altered["receipt"] = String(receipt)
        let tampered = try await ws.post(
            "records/modify", Self.create("t", fields: ["photo": ["value": altered]]), database: "private")
        #expect(tampered.status == 400)
        #expect((tampered.json["reason"] as? String)?.contains("the receipt is not one this server signed") == true)
    }

    @Test func alteredOrExpiredURLsAreRefusedWith401() async throws {
        let ws = try WebServicesFixture()
        let url = try #require(try await ws.uploadURLs(fields: ["photo"]).first)
        let components = try #require(URLComponents(string: url))
        let expiry = try #require(components.queryItems?.first { $0.name == "e" }?.value)
        let signature = try #require(components.queryItems?.first { $0.name == "s" }?.value)
        let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
        let later = url.replacingOccurrences(of: "e=\(expiry)", with: "e=\(Int64(expiry)! + 3600)")
        for bad in [url.replacingOccurrences(of: signature, with: flipped), later, url.components(separatedBy: "?")[0]]
        {
            let answer = try await ws.request("POST", url: bad, body: Self.bytes(3))
            #expect(answer.status == 401, "\(bad): \(answer.json)")
            #expect(answer.json["serverErrorCode"] as? String == "AUTHENTICATION_FAILED")
        }

        // Signed with the server's own key, but past its time.
        let key = try ws.hmacKey()
        let fields = try #require(components.path.split(separator: "/").last.map(String.init))
        let past = Int64(Date().timeIntervalSince1970) - 10
        let ticket = try #require(AssetTicket.decode(purpose: .upload, fields: fields, expiry: past))
        let base = ws.server.baseURL.absoluteString
        let expired = "\(base)/assets/1/\(fields)?e=\(past)&s=\(ticket.signature(key))"
        let answer = try await ws.request("POST", url: expired, body: Self.bytes(3))
        #expect(answer.status == 401)
        #expect((answer.json["reason"] as? String)?.contains("expired") == true, "\(answer.json)")

        // An upload grant's signature is not a download ticket's.
        let asDownload = "\(base)/assets/1/download/\(fields)?e=\(expiry)&s=\(signature)"
        #expect(try await ws.request("GET", url: asDownload).status == 401)
        // Nor does a valid upload URL take a GET.
        #expect(try await ws.request("GET", url: url).status == 401)
    }

    @Test func anAssetOverTheLimitIsRefusedWith413() async throws {
        // A limit of 3 MiB + 5: over one part and not a multiple of it; the JSON body limit
        // (1 MiB here) does not apply to upload URLs.
        let limit = 3 << 20 + 5
        let ws = try WebServicesFixture(environment: [
            "STRATUS_SERVER_MAX_ASSET_BYTES": "\(limit)", "STRATUS_SERVER_MAX_BODY_BYTES": "\(1 << 20)",
        ])
        let urls = try await ws.uploadURLs(fields: ["a", "b"])
        let atLimit = try await ws.request("POST", url: urls[0], body: Self.bytes(limit))
        #expect(atLimit.status == 200, "the limit itself is accepted: \(atLimit.json)")
        let over = try await ws.request("POST", url: urls[1], body: Self.bytes(limit + 1))
        #expect(over.status == 413)
        #expect(over.json["stratusErrorCode"] as? String == "limitExceeded", "\(over.json)")
        #expect((over.json["reason"] as? String)?.contains("asset") == true, "\(over.json)")
    }

    @Test func theServerKeepsNoCopyOfTheAssetsItServes() async throws {
        // Embedded containers copy fetched assets to local files for `fileURL`; stratusd's
        // clients download them, so a copy per fetch would only fill the server's disk.
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("stratusd-tmp-\(UUID())")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let ws = try WebServicesFixture(environment: ["TMPDIR": temporary.path])
        let singleFile = try await ws.upload(Self.bytes(700_000))
        let saved = try await ws.post(
            "records/modify", Self.create("kept", fields: ["photo": ["value": singleFile, "type": "ASSET"]]),
            database: "private")
        #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        let read = try await ws.post("records/lookup", ["records": [["recordName": "kept"]]], database: "private")
        let fields = read.records.first?["fields"] as? [String: [String: Any]]
        #expect(fields?["photo"]?["value"] as? [String: Any] != nil, "\(read.json)")
        let query = try await ws.post("records/query", ["query": ["recordType": "Photo"]], database: "private")
        #expect(query.status == 200 && query.records.count == 1, "\(query.json)")
        let copies = FileManager.default.enumerator(atPath: temporary.path)?.allObjects.count ?? 0
        #expect(copies == 0, "files under the server's temporary directory: \(copies)")
    }

    @Test func aMultiPartAssetIsDownloadedByteForByte() async throws {
        let ws = try WebServicesFixture()
        // 5 MiB + 1: ten full 512 KiB parts and a one-byte last part (decision 0015); and
        // exactly two parts, whose download ends on a full part.
        for (name, size) in [("big", 5 << 20 + 1), ("even", 1 << 20)] {
            let content = Self.bytes(size, seed: UInt8(size % 251))
            let singleFile = try await ws.upload(content)
            #expect((singleFile["size"] as? NSNumber)?.intValue == size)
            let saved = try await ws.post(
                "records/modify", Self.create(name, fields: ["photo": ["value": singleFile, "type": "ASSET"]]),
                database: "private")
            #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
            let read = try await ws.post("records/lookup", ["records": [["recordName": name]]], database: "private")
            let fields = read.records.first?["fields"] as? [String: [String: Any]]
            let value = try #require(fields?["photo"]?["value"] as? [String: Any], "\(read.json)")
            let downloaded = try await ws.request("GET", url: try #require(value["downloadURL"] as? String))
            #expect(downloaded.status == 200)
            #expect(downloaded.body.count == size)
            #expect(downloaded.body == content, "\(name): the exact bytes")
        }
    }

    @Test func uploadURLsNeedAWriterAndValidTokens() async throws {
        let ws = try WebServicesFixture()
        let tokens = [["recordType": "Photo", "fieldName": "photo"]]
        let anonymous = try await ws.post("assets/upload", ["tokens": tokens], as: .anonymous)
        #expect(anonymous.status == 421, "\(anonymous.json)")
        let empty = try await ws.post("assets/upload", ["tokens": [[String: String]]()])
        #expect(empty.status == 400)
        let noField = try await ws.post("assets/upload", ["tokens": [["recordType": "Photo"]]])
        #expect(noField.status == 400)
        let named = try await ws.post("assets/upload", ["tokens": tokens])
        let token = try #require((named.json["tokens"] as? [[String: Any]])?.first, "\(named.json)")
        #expect((token["recordName"] as? String)?.isEmpty == false, "a new record name when none is given")
        #expect(token["fieldName"] as? String == "photo")
    }
}
