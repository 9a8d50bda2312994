import Hummingbird
import Logging
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
/// only the framing differs (chunked transfer encoding instead of a `Content-Length`). A writer
/// failure in the first piece (an entry the read accepted but the writer cannot write) is the
/// request's error (500 `INTERNAL_ERROR`): that piece is written before the head is sent. After
/// it, the failure is logged at error under the request ID and closes the connection
/// mid-answer: the status has been sent.
struct ChangesAnswerStream: Sendable {
    /// Records written per piece: about 120 KiB of the Kinto peer's records (620 bytes each).
    static let recordsPerPiece = 200

    /// The batch as read: its entries' bytes (no record holds an asset), or decoded.
    enum Changes: Sendable {
        case raw(RawZoneChangesBatch)
        case stored(StoredZoneChangesBatch)
    }

    let changes: Changes
    let zoneID: CKRecordZone.ID
    let translator: WSRecordTranslator
    let numbersAsStrings: Bool
    /// The request's ID, and the log of an answer cut by a change it cannot write.
    let requestID: String
    let logger: Logger

    /// The 200 response: one piece with its length when the batch fits in one, pieces otherwise.
    /// The first piece is written before the response is returned, so a change it cannot write
    /// is still the request's error.
    func response() throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let firstEnd = min(count, Self.recordsPerPiece)
        var out = writer(capacity: 1024 * firstEnd + 256)
        try writePiece(0..<firstEnd, into: &out)
        let first = ByteBuffer(bytes: out.bytes)
        guard firstEnd < count else { return Response(status: .ok, headers: headers, body: .init(byteBuffer: first)) }
        // The writer goes on with the pieces after the first: it knows what it has written.
        out.removeAllBytes()
        let (stream, rest) = (self, out)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { body in try await stream.send(first, then: rest, to: &body) })
    }

    private var count: Int {
        switch changes {
        case .raw(let batch): batch.changes.count
        case .stored(let batch): batch.changes.count
        }
    }

    /// Sends the `first` piece, then writes the others with `writer` (the one that wrote the
    /// first, emptied) into `body` one by one, and finishes it.
    private func send(
        _ first: ByteBuffer, then writer: WSChangesAnswerWriter, to body: inout any ResponseBodyWriter
    ) async throws {
        try await body.write(first)
        var out = writer
        var start = Self.recordsPerPiece
        while start < count {
            let end = min(start + Self.recordsPerPiece, count)
            do {
                try writePiece(start..<end, into: &out)
            } catch {
                logger.error(
                    "change answer cut: a stored change could not be written",
                    metadata: [
                        "stratus.request.id": "\(requestID)", "stratus.reason": "\(error)",
                        "stratus.records.sent": "\(start)",
                    ])
                throw error
            }
            try await body.write(ByteBuffer(bytes: out.bytes))
            out.removeAllBytes()
            start = end
        }
        try await body.finish(nil)
    }

    /// The changes at `range`, after the answer's opening when the range starts the batch and
    /// followed by its end when the range ends it.
    private func writePiece(_ range: Range<Int>, into out: inout WSChangesAnswerWriter) throws {
        switch changes {
        case .raw(let batch):
            if range.lowerBound == 0 { out.begin(batch) }
            try out.writeChanges(batch.changes[range], of: zoneID)
            if range.upperBound == count { out.end(of: zoneID, syncToken: syncToken(batch), namingZone: false) }
        case .stored(let batch):
            if range.lowerBound == 0 { out.begin(batch) }
            out.writeChanges(batch.changes[range], of: zoneID)
            if range.upperBound == count { out.end(of: zoneID, syncToken: syncToken(batch), namingZone: false) }
        }
    }

    private func syncToken<Change>(_ batch: ZoneChangesPage<Change>) -> String {
        SyncTokenText.encode(batch.token.data)
    }

    private func writer(capacity: Int) -> WSChangesAnswerWriter {
        WSChangesAnswerWriter(translator: translator, numbersAsStrings: numbersAsStrings, capacity: capacity)
    }
}
