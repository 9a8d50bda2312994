import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import StratusBackend

/// `GET /health`: 200 `{"status": "ok"}` when a backend read answers within the time limit,
/// else 503 `{"status": "unavailable"}` (decision 0013.7). The answer says nothing else; why
/// the backend did not answer goes to the log. The only route that needs no credentials.
struct HealthCheck: Sendable {
    let backend: any DatabaseBackend
    var timeLimit: Duration = .seconds(1)

    private struct Body: Encodable {
        var status: String
    }

    func response(logger: Logger) async throws -> Response {
        let failure = await firstOutcome()
        if let failure {
            logger.warning("health check failed", metadata: ["stratus.reason": "\(failure)"])
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let body = try JSONEncoder().encode(Body(status: failure == nil ? "ok" : "unavailable"))
        return Response(
            status: failure == nil ? .ok : .serviceUnavailable, headers: headers,
            body: .init(byteBuffer: ByteBuffer(data: body)))
    }

    /// `nil` when a read answered in time, else why not. A read that hangs keeps its pool
    /// thread, but the answer does not wait for it.
    private func firstOutcome() async -> String? {
        let backend = self.backend
        let limit = timeLimit
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    return try await NIOThreadPool.singleton.runIfActive {
                        do {
                            try backend.read { transaction in _ = try transaction.get([0x00]) }
                            return nil
                        } catch {
                            return "the backend does not answer: \(error)"
                        }
                    }
                } catch {
                    return "no thread to ask the backend on: \(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return "the backend did not answer within \(limit)"
            }
            let first = await group.next() ?? "no answer"
            group.cancelAll()
            return first
        }
    }
}
