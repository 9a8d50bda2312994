import Foundation
import Stratus
import StratusWebServices

/// A remote container's long-lived operations (decision 0016.6) over stratusd's
/// `stratus/operations/*` (decision 0014.8–9): submitted with the journal's own request
/// encoding, run by the server, their callbacks read back from its journal. The journal is the
/// caller's, whatever database a path names; submissions name the database they target.
struct RemoteJournal: RemoteLongLivedJournal {
    let transport: RemoteTransport

    func submit(_ operationID: String, scope: CKDatabase.Scope, submission: LongLivedSubmission) throws {
        let body: JSONValue = [
            "operationID": .string(operationID), "operationClass": .string(submission.operationClass),
            "isLongLived": true, "request": .string(Data(submission.request).base64EncodedString()),
        ]
        // Idempotent by operation ID: the server answers a resubmission with the first one.
        let answer = try transport.post(scope, "stratus/operations/submit", body)
        guard answer["persisted"] == .bool(true) else {
            throw RemoteFailure.error(
                .serverResponseLost, "the server did not say it persisted operation \(operationID)")
        }
    }

    func events(_ operationID: String, from: Int64, wait: Double) throws -> RemoteJournalPage {
        let answer = try transport.get(
            .private, "stratus/operations/\(Self.segment(operationID))/events",
            query: [("from", "\(from)"), ("timeout", "\(wait)")], wait: wait)
        guard case .array(let items) = answer["events"], case .string(let state) = answer["state"] else {
            throw RemoteFailure.error(.serverResponseLost, "the events of operation \(operationID) cannot be read")
        }
        var events: [(sequence: Int64, bytes: [UInt8])] = []
        for item in items {
            guard case .integer(let sequence) = item["sequence"], case .string(let text) = item["event"],
                let bytes = Data(base64Encoded: text)
            else {
                throw RemoteFailure.error(.serverResponseLost, "an event of operation \(operationID) cannot be read")
            }
            events.append((sequence, Array(bytes)))
        }
        return RemoteJournalPage(events: events, isRunning: state == "running")
    }

    func markDelivered(_ operationID: String) throws {
        _ = try transport.post(.private, "stratus/operations/\(Self.segment(operationID))/delivered", [:])
    }

    func cancel(_ operationID: String) throws {
        _ = try transport.post(.private, "stratus/operations/\(Self.segment(operationID))/cancel", [:])
    }

    func outstandingIDs() throws -> [String] {
        let answer = try transport.get(.private, "stratus/operations")
        guard case .array(let items) = answer["operationIDs"] else {
            throw RemoteFailure.error(.serverResponseLost, "the server's list of operations cannot be read")
        }
        return items.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    func lookup(_ operationID: String) throws -> RemoteJournalEntry? {
        guard let answer = try outstanding(operationID) else { return nil }
        guard case .string(let kind) = answer["operationClass"], case .string(let database) = answer["database"],
            let scope = CKDatabase.Scope(pathName: database), case .string(let state) = answer["state"],
            case .integer(let next) = answer["nextSequence"], case .string(let text) = answer["request"],
            let request = Data(base64Encoded: text), case .integer(let persisted) = answer["persisted"]
        else {
            throw RemoteFailure.error(
                .serverResponseLost, "operation \(operationID) as the server answered it cannot be read")
        }
        var finished: Date?
        if case .integer(let milliseconds) = answer["finished"] {
            finished = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return RemoteJournalEntry(
            operationClass: kind, scope: scope, isRunning: state == "running", nextSequence: next,
            request: Array(request), persistedAt: Date(timeIntervalSince1970: Double(persisted) / 1000),
            finishedAt: finished)
    }

    /// The server's answer about outstanding operation `operationID`; `nil` when it has none.
    private func outstanding(_ operationID: String) throws(CKError) -> JSONValue? {
        let result = Result { () throws(CKError) -> JSONValue in
            try transport.get(.private, "stratus/operations/\(Self.segment(operationID))")
        }
        if case .failure(let error) = result, error.code == .unknownItem { return nil }
        return try result.get()
    }

    /// `operationID` as one path segment.
    static func segment(_ operationID: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        return operationID.addingPercentEncoding(withAllowedCharacters: allowed) ?? operationID
    }
}

extension CKDatabase.Scope {
    /// The scope named `name` in a Web Services path.
    init?(pathName name: String) {
        switch name {
        case "public": self = .public
        case "private": self = .private
        case "shared": self = .shared
        default: return nil
        }
    }
}
