import Foundation

/// One client connection of a ``FaultProxy``, served on a thread of its own: request by
/// request, each exchange gets its fault, over one upstream connection to the server made when
/// the first request is forwarded.
final class FaultProxyConnection: @unchecked Sendable {
    // Used by its own thread only, after the accepting thread handed it over.
    private let core: FaultProxyCore
    private let client: FaultProxySocket
    private let number: Int
    private let targetPort: Int
    private var upstream: (socket: FaultProxySocket, reader: FaultProxyReader)?

    init(core: FaultProxyCore, client: FaultProxySocket, number: Int, targetPort: Int) {
        self.core = core
        self.client = client
        self.number = number
        self.targetPort = targetPort
    }

    /// Serves exchanges until either side closes, a fault ends the connection, or the proxy stops.
    func serve() {
        defer {
            client.close()
            upstream?.socket.close()
            core.connectionEnded()
        }
        let core = self.core
        var requests = FaultProxyReader(socket: client) { core.isStopped }
        while let request = requests.next(isResponse: false) {
            var exchange = core.begin(request, connection: number)
            let goesOn = handle(request, &exchange)
            core.record(exchange)
            guard goesOn, request.header("connection")?.lowercased() != "close" else { return }
        }
    }

    /// Applies `exchange`'s fault to `request`; returns whether the connection goes on.
    private func handle(_ request: FaultProxyMessage, _ exchange: inout FaultProxyExchange) -> Bool {
        switch exchange.fault {
        case .closeAtOnce:
            client.reset()
            return false
        case .respond(let bytes):
            exchange.answered = client.write(bytes)
            return false
        case .dropRequest(let count):
            if let server = connectedUpstream() {
                server.socket.write(request.bytes.prefix(min(count, request.bytes.count - 1)))
                server.socket.reset()
            }
            client.reset()
            return false
        case .stallRequest(let seconds):
            guard pause(seconds) else { return false }
            return forward(request, &exchange, responseStall: 0, responseBytes: nil)
        case .stallResponse(let seconds):
            return forward(request, &exchange, responseStall: seconds, responseBytes: nil)
        case .dropResponse(let count):
            return forward(request, &exchange, responseStall: 0, responseBytes: count)
        case .pass:
            return forward(request, &exchange, responseStall: 0, responseBytes: nil)
        }
    }

    /// Forwards `request`, reads the server's whole response, holds it `responseStall`
    /// seconds, then returns it — or only its first `responseBytes` and closes.
    private func forward(
        _ request: FaultProxyMessage, _ exchange: inout FaultProxyExchange, responseStall: Double,
        responseBytes: Int?
    ) -> Bool {
        guard var server = connectedUpstream() else {
            client.reset()
            return false
        }
        exchange.reachedServer = server.socket.write(request.bytes)
        core.record(exchange)  // seen at once, not when a stall ends
        let response = exchange.reachedServer ? server.reader.next(isResponse: true) : nil
        upstream = server
        guard let response else {
            client.reset()
            return false
        }
        exchange.serverStatus = response.status
        exchange.serverBody = Array(response.body)
        core.record(exchange)
        if let responseBytes {
            client.write(response.bytes.prefix(min(responseBytes, response.bytes.count - 1)))
            client.reset()
            return false
        }
        guard pause(responseStall) else { return false }
        exchange.answered = client.write(response.bytes)
        return exchange.answered && response.header("connection")?.lowercased() != "close"
    }

    /// The upstream connection, made on first use; `nil` when the server cannot be reached.
    private func connectedUpstream() -> (socket: FaultProxySocket, reader: FaultProxyReader)? {
        if let upstream { return upstream }
        guard let socket = try? FaultProxySocket.connect(port: targetPort) else { return nil }
        let core = self.core
        let made = (socket, FaultProxyReader(socket: socket) { core.isStopped })
        upstream = made
        return made
    }

    /// Waits `seconds`, in slices, unless the proxy stops; returns whether it did not.
    private func pause(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if core.isStopped { return false }
            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
        return !core.isStopped
    }
}
