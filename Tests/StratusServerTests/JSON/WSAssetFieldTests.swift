import Crypto
import Foundation
import Stratus
import StratusServer
import StratusWebServices
import Testing

/// ASSET fields through the translator with the server's asset coder (decision 0012.8): a
/// receipt of this database becomes its staged content; another database's, an altered or an
/// expired receipt is refused naming the field; fetched assets come out with checksum, size
/// and a download URL.
@Suite("Web Services asset fields")
struct WSAssetFieldTests {
    static let key = SymmetricKey(size: .bits256)
    static let alice = AssetDatabase(
        namespace: Namespace(container: "iCloud.com.example", environment: .development, owner: "_alice"),
        scope: .private)
    static let bob = AssetDatabase(
        namespace: Namespace(container: "iCloud.com.example", environment: .development, owner: "_bob"),
        scope: .private)
    let now = Date()

    func translator(_ database: AssetDatabase = Self.alice, key: SymmetricKey = Self.key, at time: Date? = nil)
        -> WSRecordTranslator
    {
        WSRecordTranslator(
            callerRecordName: "_caller",
            assets: AssetFieldCoder(key: key, database: database, origin: "http://example:8080", now: time ?? now))
    }

    func receipt(_ database: AssetDatabase = Self.alice, contentID: String = "CHK.1", size: Int64 = 5) -> String {
        AssetReceipt(database: database, contentID: contentID, size: size).text(key: Self.key, now: now)
    }

    func value(_ field: JSONValue, _ translator: WSRecordTranslator) throws -> (any CKRecordValue)? {
        let dictionary = try JSONValueDecoder().decode(WSFieldDictionary.self, from: field.serialized())
        return try translator.value(of: dictionary, named: "photo", zone: .default)
    }

    func reason(_ field: JSONValue, _ translator: WSRecordTranslator) -> String {
        do {
            _ = try value(field, translator)
            return "accepted"
        } catch let error as WSTranslationError {
            return error.reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func aReceiptOfThisDatabaseNamesItsStagedContent() throws {
        let typed = try value(["value": ["receipt": .string(receipt())], "type": "ASSET"], translator())
        let asset = try #require(typed as? CKAsset)
        #expect(asset.contentID == "CHK.1")
        #expect(asset.contentSize == 5)
        #expect(asset.fileURL == nil)
        let inferred = try value(["value": ["receipt": .string(receipt())]], translator()) as? CKAsset
        #expect(inferred?.contentID == "CHK.1")
        let list = try value(
            [
                "value": [["receipt": .string(receipt())], ["receipt": .string(receipt(contentID: "CHK.2"))]],
                "type": "ASSET_LIST",
            ], translator())
        #expect((list as? [CKAsset])?.map(\.contentID) == ["CHK.1", "CHK.2"])
    }

    @Test func anotherDatabasesReceiptIsRefusedNamingTheField() {
        let refusal = reason(["value": ["receipt": .string(receipt(Self.bob))], "type": "ASSET"], translator())
        #expect(refusal.hasPrefix("Field 'photo' (ASSET): the receipt was made for another database"), "\(refusal)")
    }

    @Test func anAlteredOrForeignReceiptIsRefused() {
        let good = receipt()
        var altered = Array(good)
        altered[altered.count - 3] = altered[altered.count - 3] == "A" ? "B" : "A"
        let forged = AssetReceipt(database: Self.alice, contentID: "CHK.1", size: 5)
            .text(key: SymmetricKey(size: .bits256), now: now)
        let undelimited = good.replacingOccurrences(of: ".", with: "x")
        for text in [String(altered), forged, undelimited, "", "a.b.c"] {
            let refusal = reason(["value": ["receipt": .string(text)]], translator())
            #expect(refusal.contains("the receipt is not one this server signed"), "\(text): \(refusal)")
        }
        #expect(
            reason(["value": ["fileChecksum": "x"], "type": "ASSET"], translator()).contains(
                "expected an asset {receipt, …}"))
    }

    @Test func anExpiredReceiptIsRefused() {
        let later = translator(at: now.addingTimeInterval(TimeInterval(AssetReceipt.lifetime) + 1))
        let refusal = reason(["value": ["receipt": .string(receipt())]], later)
        #expect(refusal.hasPrefix("Field 'photo' (ASSET, inferred): the receipt expired"), "\(refusal)")
    }

    @Test func aFetchedAssetComesOutWithChecksumSizeAndDownloadURL() throws {
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p"))
        record["photo"] = CKAsset(stagedContentID: "c2hhMjU2+/=.UUID", size: 42)
        record["album"] = [CKAsset(stagedContentID: "A.1", size: 1), CKAsset(stagedContentID: "B.2", size: 2)]
        let fields = translator().dictionary(for: record, numbersAsStrings: true, desiredKeys: nil)["fields"]
        let photo = try #require(fields?["photo"])
        #expect(photo["type"] == "ASSET")
        #expect(photo["value"]?["fileChecksum"] == "c2hhMjU2+/=")
        #expect(photo["value"]?["size"] == .integer(42), "sizes are not numbersAsStrings")
        guard case .string(let url)? = photo["value"]?["downloadURL"] else {
            Issue.record("no downloadURL in \(photo)")
            return
        }
        #expect(url.hasPrefix("http://example:8080/assets/1/download/") && url.contains("?e=") && url.contains("&s="))
        #expect(fields?["album"]?["type"] == "ASSET_LIST")
        guard case .array(let album)? = fields?["album"]?["value"], album.count == 2 else {
            Issue.record("album is not a list of two: \(String(describing: fields))")
            return
        }
        #expect(album[1]["size"] == .integer(2))
    }
}
