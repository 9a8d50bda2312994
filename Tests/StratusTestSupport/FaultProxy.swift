public import Foundation

/// A TCP proxy of a test's own on loopback, between an HTTP client and a server, that breaks
/// exchanges the way a network does: it reads each HTTP/1.1 request off the client's
/// connection (keep-alive connections carry many), asks its plan for a ``FaultProxyFault``, and
/// forwards, drops, stalls or answers accordingly (issue 12, "Network faults").
///
/// ```swift
/// let proxy = try FaultProxy(forwardingTo: daemon.baseURL, seed: 7) { exchange, random in
///     exchange.path.hasSuffix("records/modify") ? .dropResponse(afterBytes: 0) : .pass
/// }
/// let server = RemoteServer(url: proxy.url, credentials: credentials)
/// ```
///
/// Randomness is the proxy's seeded generator, handed to the plan (print ``seed`` when a test
/// fails); every wait is bounded, and ``stop()`` (or releasing the proxy) ends every connection.
/// Only loopback: it listens on and connects to 127.0.0.1.
public final class FaultProxy: Sendable {
    /// Decides the fault of an exchange, given what the request is and the proxy's random source.
    /// It runs under the proxy's lock, in request order: it must not call the proxy.
    public typealias Plan = @Sendable (FaultProxyExchange, inout SeededGenerator) -> FaultProxyFault

    /// The port the proxy listens on, on 127.0.0.1.
    public let port: Int
    /// The seed of the proxy's random source.
    public let seed: UInt64
    private let core: FaultProxyCore

    /// A proxy to the server at `target` (a loopback URL with a port) whose exchanges get the
    /// faults `plan` says, drawing on a generator seeded with `seed`.
    public init(forwardingTo target: URL, seed: UInt64 = .random(in: 0...UInt64.max), plan: @escaping Plan) throws {
        guard let targetPort = target.port, ["127.0.0.1", "localhost"].contains(target.host ?? "") else {
            throw FaultProxySocket.Failure(description: "a fault proxy forwards to a loopback URL with a port only")
        }
        self.seed = seed
        let (listener, port) = try FaultProxySocket.listen()
        self.port = port
        core = FaultProxyCore(listener: listener, targetPort: targetPort, seed: seed, plan: plan)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// The proxy's base URL, `http://127.0.0.1:PORT`, for a client to use in place of the server's.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every exchange so far, in the order their requests arrived.
    public var exchanges: [FaultProxyExchange] { core.exchanges }

    /// Replaces the plan for exchanges from now on.
    public func setPlan(_ plan: @escaping Plan) {
        core.setPlan(plan)
    }

    /// Stops accepting, ends every connection (within about 0.1 s each, a stall included), and
    /// waits for them (at most 10 s). Stopping twice is harmless.
    public func stop() {
        core.stop()
    }
}
