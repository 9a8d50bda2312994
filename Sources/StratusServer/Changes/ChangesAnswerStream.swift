import Hummingbird
import NIOCore
internal import Stratus
internal import StratusWebServices

/// A `records/changes` answer sent in pieces as it is written: the engine reads the whole batch
/// first (one read transaction; an error there is still the request's error status), then the
/// record dictionaries are written a piece at a time, each piece sent while the next is written.
/// So the client receives the first records while the server writes the last ones, and no
/// answer of a whole batch (about 1 MB for 2,000 records) is held in memory at once.
///
/// The bytes are exactly those of ``WSChangesAnswerWriter/write(_:of:syncToken:namingZone:)``;
/// only the framing differs (chunked transfer encoding instead of a `Content-Length`).
struct ChangesAnswerStream: Sendable {
    /// Records written per piece: about 120 KiB of the Kinto peer's records (620 bytes each).
    static let recordsPerPiece = 200

    let batch: StoredZoneChangesBatch
    let zoneID: CKRecordZone.ID
    let syncToken: String
    let translator: WSRecordTranslator
    let numbersAsStrings: Bool

    /// The 200 response: one piece with its length when the batch fits in one, pieces otherwise.
    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        guard batch.changes.count > Self.recordsPerPiece else {
            var out = writer(capacity: 1024 * batch.changes.count + 256)
            out.write(batch, of: zoneID, syncToken: syncToken, namingZone: false)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: out.bytes)))
        }
        let stream = self
        return Response(status: .ok, headers: headers, body: ResponseBody { body in try await stream.send(to: &body) })
    }

    /// Writes the answer into `body` piece by piece, then finishes it.
    private func send(to body: inout any ResponseBodyWriter) async throws {
        var out = writer(capacity: 1024 * Self.recordsPerPiece + 256)
        out.begin(batch)
        var start = batch.changes.startIndex
        while start < batch.changes.endIndex {
            let end = min(start + Self.recordsPerPiece, batch.changes.endIndex)
            out.writeChanges(batch.changes[start..<end], of: zoneID)
            if end == batch.changes.endIndex { out.end(of: zoneID, syncToken: syncToken, namingZone: false) }
            try await body.write(ByteBuffer(bytes: out.bytes))
            out.removeAllBytes()
            start = end
        }
        try await body.finish(nil)
    }

    private func writer(capacity: Int) -> WSChangesAnswerWriter {
        WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: capacity)
    }
}
