import Foundation

/// What a change token says, and its authenticated wire format (decision 0003):
///
/// ```
/// "S" | version 2 | kind (1 zone, 2 database) | store ID (16) | container number (8)
///     | scope (1) | zone number (8; 0 for database tokens) | position (8) | horizon (8) | tag (16)
/// ```
/// `horizon` is the history horizon of the zone (or database) when the token was issued: a
/// purge moves the horizon, which expires every token issued before it, while the tokens of a
/// walk started after it stay valid whatever their position (decision 0003).
/// The tag is a SipHash-2-4 MAC (two 64-bit halves) over everything before it, keyed by the
/// store's secret key.
struct ChangeTokenPayload: Equatable {
    enum Kind: UInt8 {
        case zone = 1
        case database = 2
    }

    static let magic: UInt8 = 0x53
    static let version: UInt8 = 2
    static let length = 3 + 16 + 8 + 1 + 8 + 8 + 8 + 16

    var kind: Kind
    var storeID: [UInt8]
    var containerNumber: Int64
    var scope: UInt8
    var zoneNumber: Int64
    var position: Int64
    /// The history horizon the token was issued under.
    var horizon: Int64

    func token(macKey: [UInt8]) -> CKServerChangeToken {
        var w = ByteWriter(capacity: ChangeTokenPayload.length)
        w.write(ChangeTokenPayload.magic)
        w.write(ChangeTokenPayload.version)
        w.write(kind.rawValue)
        w.writeRaw(storeID)
        w.write(containerNumber)
        w.write(scope)
        w.write(zoneNumber)
        w.write(position)
        w.write(horizon)
        let tag = SipHash.tag(w.bytes, key: macKey)
        w.writeRaw(tag)
        return CKServerChangeToken(data: Data(w.bytes))
    }

    /// Decodes and authenticates `token` for a fetch of `expected` kind in `context`.
    static func decode(
        _ token: CKServerChangeToken, expected: Kind, context: DatabaseContext
    ) throws -> ChangeTokenPayload {
        let bytes = Array(token.data)
        guard bytes.count >= 3, bytes[0] == magic else {
            throw CKError.make(.invalidArguments, "the change token is not a Stratus change token")
        }
        guard bytes[1] == version else {
            throw CKError.make(
                .invalidArguments,
                "the change token has format version \(bytes[1]); this Stratus reads version \(version)")
        }
        guard bytes.count == length else {
            throw CKError.make(.invalidArguments, "the change token is damaged (\(bytes.count) bytes)")
        }
        var r = ByteReader(bytes)
        do {
            _ = try r.readRaw(2)
            guard let kind = Kind(rawValue: try r.readByte()) else {
                throw CKError.make(.invalidArguments, "the change token is damaged (unknown kind)")
            }
            let storeID = try r.readRaw(16)
            let payload = ChangeTokenPayload(
                kind: kind, storeID: storeID, containerNumber: try r.readInt64(), scope: try r.readByte(),
                zoneNumber: try r.readInt64(), position: try r.readInt64(), horizon: try r.readInt64())
            let tag = try r.readRaw(16)
            guard storeID == context.engine.storeID else {
                throw CKError.make(
                    .changeTokenExpired,
                    "the change token was issued by another store; fetch again from a nil token")
            }
            guard SipHash.tagsEqual(tag, SipHash.tag(Array(bytes[0..<(length - 16)]), key: context.engine.macKey))
            else {
                throw CKError.make(.invalidArguments, "the change token is damaged or was altered")
            }
            guard kind == expected else {
                let given = kind == .zone ? "a record zone change token" : "a database change token"
                let wanted = expected == .zone ? "a record zone change fetch" : "a database change fetch"
                throw CKError.make(.invalidArguments, "\(given) cannot be used for \(wanted)")
            }
            guard payload.containerNumber == context.containerNumber, payload.scope == UInt8(context.scope.rawValue)
            else {
                throw CKError.make(
                    .changeTokenExpired,
                    "the change token belongs to another database; fetch again from a nil token")
            }
            return payload
        } catch let error as CKError {
            throw error
        } catch {
            throw CKError.make(.invalidArguments, "the change token is damaged")
        }
    }
}
