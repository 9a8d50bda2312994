import Foundation
import Stratus
import StratusWebServices
import Testing

/// Error dictionaries: what the server writes (`WSErrorWriter`, `ErrorTable`) reads back as the
/// same `CKError` (`WSErrorReader`).
@Suite("Web Services errors, both ways")
struct WSErrorReaderTests {
    let translator = WSRecordTranslator(callerRecordName: "_caller")

    /// An error of `code` with a reason and, for the codes that have one, a wait.
    static func error(_ code: CKError.Code) -> CKError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "why \(code.name) happened"]
        if code == .requestRateLimited || code == .zoneBusy { userInfo[CKErrorRetryAfterKey] = NSNumber(value: 2.5) }
        return CKError(code, userInfo: userInfo)
    }

    @Test(arguments: CKError.Code.allCases)
    func aPerItemErrorReadsBackWithItsCodeReasonAndWait(_ code: CKError.Code) throws {
        let error = Self.error(code)
        var members = WSErrorWriter.members(for: error, uuid: "u-1", hiddenReason: "hidden")
        members["recordName"] = "r"
        let read = WSErrorReader.error(
            from: try WSClientFixture.wire(.object(members)), status: nil, translator: translator)
        #expect(read.code == code)
        let shown = ErrorTable.mayShowReason(of: error)
        #expect(read.localizedDescription == (shown ? "why \(code.name) happened" : "hidden"))
        #expect(read.retryAfterSeconds == ErrorTable.retryAfter(for: error).map(Double.init))
        #expect(read.serverRecord == nil)
    }

    @Test(arguments: CKError.Code.allCases)
    func withoutStratusErrorCodeTheCodeReadsFromTheTableRow(_ code: CKError.Code) {
        let row = ErrorTable.row(for: code)
        let read = WSErrorReader.error(
            from: ["serverErrorCode": .string(row.serverErrorCode), "reason": "r"], status: row.status,
            translator: translator)
        #expect(ErrorTable.row(for: read.code) == row)
        let byStatus = WSErrorReader.code(serverErrorCode: nil, status: row.status)
        #expect(ErrorTable.row(for: byStatus).status == row.status)
    }

    @Test func aWholeRequestBodyReadsWithItsStatus() {
        let throttled = WSErrorReader.error(
            from: ["uuid": "u", "serverErrorCode": "THROTTLED", "reason": "slow down", "retryAfter": 3], status: 429,
            translator: translator)
        #expect(throttled.code == .requestRateLimited)
        #expect(throttled.retryAfterSeconds == 3)
        #expect(throttled.localizedDescription == "slow down")
        #expect(
            WSErrorReader.error(from: ["reason": "x"], status: 503, translator: translator).code == .serviceUnavailable)
        #expect(WSErrorReader.error(from: [:], status: 421, translator: translator).code == .notAuthenticated)
        #expect(WSErrorReader.error(from: [:], status: nil, translator: translator).code == .internalError)
        let unknownName = WSErrorReader.error(
            from: ["stratusErrorCode": "someFutureCode", "serverErrorCode": "ZONE_NOT_FOUND"], status: 404,
            translator: translator)
        #expect(unknownName.code == .zoneNotFound)
        let exact = WSErrorReader.error(
            from: ["stratusErrorCode": "limitExceeded", "serverErrorCode": "BAD_REQUEST"], status: 400,
            translator: translator)
        #expect(exact.code == .limitExceeded)
    }

    @Test func aConflictCarriesTheServersRecord() throws {
        let fixture = try WSClientFixture()
        let stored = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r"))
        stored["n"] = 1
        try fixture.save([stored])
        let server = try fixture.fetch(stored.recordID)
        let conflict = CKError(
            .serverRecordChanged,
            userInfo: [NSLocalizedDescriptionKey: "changed", CKRecordChangedErrorServerRecordKey: server])
        var members = WSErrorWriter.members(for: conflict, uuid: "u", hiddenReason: "hidden")
        members[WSErrorWriter.serverRecordKey] = fixture.translator.dictionary(
            for: server, numbersAsStrings: false, desiredKeys: nil)
        let read = WSErrorReader.error(
            from: try WSClientFixture.wire(.object(members)), status: nil, translator: fixture.translator)
        #expect(read.code == .serverRecordChanged)
        let record = try #require(read.serverRecord)
        #expect(record.recordID == server.recordID)
        #expect(record.recordChangeTag == server.recordChangeTag)
        #expect(record["n"] as? Int == 1)
        #expect(record.changedKeys().isEmpty)
        let exists = WSErrorReader.error(
            from: ["serverErrorCode": "EXISTS"], status: nil, translator: fixture.translator)
        #expect(exists.code == .serverRecordChanged)
    }
}
