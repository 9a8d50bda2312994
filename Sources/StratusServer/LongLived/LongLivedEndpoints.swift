import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// The long-lived operation endpoints under `/database/1/{c}/{e}/{db}/stratus/operations`
/// (decision 0014.8–9). Each answers from the caller's own journal (its namespace in this
/// container and environment), so another user's operation ID is simply not there: 404.
enum LongLivedEndpoints {
    static let all = [submit, list, lookup, events, cancel, delivered]

    static let submit = DatabaseOperation(
        name: "stratus/operations/submit", methods: [.post], writes: true, handle: handleSubmit)
    static let list = DatabaseOperation(
        name: "stratus/operations", methods: [.get], writes: true, handle: handleList)
    static let lookup = DatabaseOperation(
        name: "stratus/operations/:id", methods: [.get], writes: true, handle: handleLookup)
    static let events = DatabaseOperation(
        name: "stratus/operations/:id/events", methods: [.get], writes: true, handle: LongLivedEvents.handle)
    static let cancel = DatabaseOperation(
        name: "stratus/operations/:id/cancel", methods: [.post], writes: true, handle: handleCancel)
    static let delivered = DatabaseOperation(
        name: "stratus/operations/:id/delivered", methods: [.post], writes: true, handle: handleDelivered)

    /// Persists the operation with its lease in one transaction, then starts it here; an ID
    /// the caller already submitted answers the existing entry without running it again.
    static func handleSubmit(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(OperationSubmission.self)
        let submission = try body.checked()
        let runner = call.server.longLivedRunner
        let target = JournalTarget(namespace: call.targetNamespace, caller: call.caller)
        let status = try await call.withJournal { journal in
            let outcome: HostedJournal.Submitted
            do {
                outcome = try journal.submit(
                    submission, id: body.operationID, target: target, scope: call.path.scope,
                    listed: body.isLongLived, holder: runner.processID, leaseExpiry: runner.leaseExpiry)
            } catch let error as LongLivedSubmissionError {
                throw ServerError.badRequest(error.reason)
            }
            switch outcome {
            case .created(let status):
                runner.start(LongLivedLease(journal: journal.number, operationID: body.operationID))
                return status
            case .existing(let status):
                return status
            }
        }
        return call.respond([
            "persisted": true, "operationID": .string(status.operationID), "state": .string(status.state.rawValue),
        ])
    }

    /// The caller's outstanding long-lived operations, oldest first
    /// (`fetchAllLongLivedOperationIDs`).
    static func handleList(_ call: DatabaseCall) async throws -> Response {
        let ids = try await call.withJournal { try $0.outstandingIDs() }
        return call.respond(["operationIDs": .array(ids.map { .string($0) })])
    }

    /// One outstanding operation with its request and times (ms), for a proxy
    /// (`fetchLongLivedOperation(withID:)`) and its status (`fetchLongLivedOperationStatus`):
    /// 404 for an ID the caller has not submitted as long-lived, or whose final callback was
    /// delivered, or that was cancelled.
    static func handleLookup(_ call: DatabaseCall) async throws -> Response {
        let id = call.operationID
        let (status, request) = try await call.withJournal { journal in
            guard let status = try journal.status(id), status.isListed,
                status.state == .running || status.state == .completed,
                let request = try journal.request(id)
            else { throw ServerError.unknownOperation(id) }
            return (status, request)
        }
        var answer = fields(status)
        answer["operationClass"] = .string(status.operationClass)
        answer["database"] = .string(status.scope?.name ?? "")
        answer["request"] = .string(Data(request).base64EncodedString())
        answer["persisted"] = .integer(Int64((status.persistedAt * 1000).rounded()))
        if let finished = status.finishedAt { answer["finished"] = .integer(Int64((finished * 1000).rounded())) }
        return call.respond(.object(answer))
    }

    /// Cancels the operation (0006.8): it leaves the list, and its run stops at its next
    /// journal point wherever it runs.
    static func handleCancel(_ call: DatabaseCall) async throws -> Response {
        let id = call.operationID
        let runner = call.server.longLivedRunner
        let status = try await call.withJournal { journal in
            guard try journal.status(id) != nil else { throw ServerError.unknownOperation(id) }
            if try journal.cancel(id) {
                let lease = LongLivedLease(journal: journal.number, operationID: id)
                runner.suspend(lease)
                runner.signals.signal(lease)
            }
            return try journal.status(id)
        }
        return call.respond(status.map(Self.answer) ?? [:])
    }

    /// Records that the client received the final callback (0006.6): the operation leaves
    /// the list. 409 while it is still running.
    static func handleDelivered(_ call: DatabaseCall) async throws -> Response {
        let id = call.operationID
        let status = try await call.withJournal { journal in
            guard let status = try journal.status(id) else { throw ServerError.unknownOperation(id) }
            guard status.state != .running else {
                throw ServerError(
                    .conflict, "CONFLICT", "operation '\(id)' is still running; its final callback is not journaled yet"
                )
            }
            _ = try journal.markDelivered(id)
            return try journal.status(id)
        }
        return call.respond(status.map(Self.answer) ?? [:])
    }

    /// `{operationID, state, nextSequence}`.
    static func answer(_ status: HostedOperationStatus) -> JSONValue { .object(fields(status)) }

    /// The fields of ``answer(_:)``.
    static func fields(_ status: HostedOperationStatus) -> [String: JSONValue] {
        [
            "operationID": .string(status.operationID), "state": .string(status.state.rawValue),
            "nextSequence": .integer(status.nextSequence),
        ]
    }
}

extension ServerError {
    /// 404 for an operation ID the caller's journal does not have.
    static func unknownOperation(_ id: String) -> ServerError {
        ServerError(
            .notFound, "NOT_FOUND", "no long-lived operation '\(id.prefix(256))' of this user",
            stratusErrorCode: "unknownItem")
    }
}

extension DatabaseCall {
    /// The namespace of the database the path names, as ``database()`` opens it.
    var targetNamespace: Namespace {
        Namespace(
            container: path.container, environment: path.environment,
            owner: path.scope == .public ? "" : caller.userRecordName)
    }

    /// The `:id` of the path.
    var operationID: String { parameters["id"] ?? "" }

    /// Runs `body` on the engine's threads with the caller's journal in this container and
    /// environment.
    func withJournal<T: Sendable>(_ body: @escaping @Sendable (HostedJournal) throws -> T) async throws -> T {
        let (engine, owner) = (
            server.engine,
            Namespace(
                container: path.container, environment: path.environment, owner: caller.userRecordName)
        )
        return try await server.executor.run(requestID: requestID) {
            try body(try HostedJournal(engine: engine, owner: owner))
        }
    }
}
