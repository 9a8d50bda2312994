import Foundation
import Synchronization

/// The state and threads of a ``FaultProxy``: an accepting thread, one thread per client
/// connection, and the exchanges they record. Its threads hold it, not the proxy, so releasing
/// the proxy stops it.
final class FaultProxyCore: Sendable {
    private let listener: FaultProxySocket
    private let targetPort: Int
    private let state: Mutex<State>

    private struct State {
        var plan: FaultProxy.Plan
        var random: SeededGenerator
        var exchanges: [FaultProxyExchange] = []
        var connections = 0
        var open = 0
        var stopped = false
        var listening = true
    }

    init(listener: FaultProxySocket, targetPort: Int, seed: UInt64, plan: @escaping FaultProxy.Plan) {
        self.listener = listener
        self.targetPort = targetPort
        state = Mutex(State(plan: plan, random: SeededGenerator(seed: seed)))
    }

    /// Starts accepting connections.
    func start() {
        let accepting = Thread { [self] in acceptLoop() }
        accepting.name = "FaultProxy accept"
        accepting.start()
    }

    var exchanges: [FaultProxyExchange] { state.withLock { $0.exchanges } }

    func setPlan(_ plan: @escaping FaultProxy.Plan) {
        state.withLock { $0.plan = plan }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, state.withLock({ $0.open > 0 || $0.listening }) {
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        defer {
            listener.close()
            state.withLock { $0.listening = false }
        }
        while !isStopped {
            guard let client = listener.accept(within: 0.1) else { continue }
            let number = state.withLock { state in
                state.open += 1
                defer { state.connections += 1 }
                return state.connections
            }
            let connection = FaultProxyConnection(core: self, client: client, number: number, targetPort: targetPort)
            let thread = Thread { connection.serve() }
            thread.name = "FaultProxy connection \(number)"
            thread.start()
        }
    }

    /// Registers the exchange of `request` on connection `number` and decides its fault.
    func begin(_ request: FaultProxyMessage, connection number: Int) -> FaultProxyExchange {
        let (method, path) = request.requestTarget
        return state.withLock { state in
            var exchange = FaultProxyExchange(
                index: state.exchanges.count, connection: number, method: method, path: path,
                operationID: request.header("x-stratus-operation-id"))
            exchange.fault = state.plan(exchange, &state.random)
            state.exchanges.append(exchange)
            return exchange
        }
    }

    /// Records what became of `exchange`.
    func record(_ exchange: FaultProxyExchange) {
        state.withLock { $0.exchanges[exchange.index] = exchange }
    }

    /// Notes that a connection's thread ended.
    func connectionEnded() {
        state.withLock { $0.open -= 1 }
    }
}
