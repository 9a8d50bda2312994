import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import StratusBackend

/// `GET /health`: 200 when the backend answers a read, 503 with the reason when it does not.
/// The only route that needs no credentials.
struct HealthCheck: Sendable {
    let backend: any DatabaseBackend

    struct Body: Encodable {
        var status: String
        var reason: String?
    }

    func response() async throws -> Response {
        let backend = self.backend
        let failure: String? = try await NIOThreadPool.singleton.runIfActive {
            do {
                try backend.read { transaction in _ = try transaction.get([0x00]) }
                return nil
            } catch {
                return "the backend does not answer: \(error)"
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = Body(status: failure == nil ? "ok" : "unavailable", reason: failure)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: failure == nil ? .ok : .serviceUnavailable, headers: headers,
            body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(body))))
    }
}
