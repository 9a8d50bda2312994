import Foundation
import Synchronization

extension FaultProxy {
    /// A plan giving `fault` to the first `times` exchanges that `matches` accepts, then passing
    /// everything.
    public static func failing(
        _ fault: FaultProxyFault, times: Int = 1, where matches: @escaping @Sendable (FaultProxyExchange) -> Bool
    ) -> Plan {
        let count = FaultProxyCounter()
        return { exchange, _ in
            guard matches(exchange), count.next() < times else { return .pass }
            return fault
        }
    }

    /// A plan giving each rule's fault to the first exchange whose path ends with the rule's
    /// suffix, then passing everything.
    public static func failingFirst(_ rules: [(suffix: String, fault: FaultProxyFault)]) -> Plan {
        let counters = rules.map { _ in FaultProxyCounter() }
        return { exchange, _ in
            for (rule, counter) in zip(rules, counters) where exchange.path.hasSuffix(rule.suffix) {
                return counter.next() == 0 ? rule.fault : .pass
            }
            return .pass
        }
    }

    /// A plan giving a random fault to a `rate` share of the exchanges `matches` accepts: a drop
    /// of the request or of the response at a random byte, a stall of either of up to
    /// `longestStall` seconds, or a close at once, each as likely.
    public static func random(
        rate: Double, longestStall: Double,
        where matches: @escaping @Sendable (FaultProxyExchange) -> Bool = { _ in true }
    ) -> Plan {
        { exchange, random in
            guard matches(exchange), Double.random(in: 0..<1, using: &random) < rate else { return .pass }
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return .dropRequest(afterBytes: Int.random(in: 0..<1024, using: &random))
            case 1: return .dropResponse(afterBytes: Int.random(in: 0..<512, using: &random))
            case 2: return .stallRequest(seconds: Double.random(in: 0...longestStall, using: &random))
            case 3: return .stallResponse(seconds: Double.random(in: 0...longestStall, using: &random))
            default: return .closeAtOnce
            }
        }
    }

    /// An HTTP/1.1 response of the proxy's own that closes the connection: `status` with
    /// `headers` and `body`.
    public static func response(status: Int, headers: [(String, String)] = [], body: String) -> [UInt8] {
        let bytes = Array(body.utf8)
        var head = "HTTP/1.1 \(status) Proxy Says \(status)\r\n"
        for (name, value) in headers + [("Content-Length", "\(bytes.count)"), ("Connection", "close")] {
            head += "\(name): \(value)\r\n"
        }
        return Array((head + "\r\n").utf8) + bytes
    }

    /// A CloudKit error answer of `status` with `serverErrorCode` and, when given, `retryAfter`
    /// seconds, as a throttling or overloaded server sends it.
    public static func cloudKitError(status: Int, serverErrorCode: String, retryAfter: Int?) -> [UInt8] {
        var members = [
            "\"uuid\":\"\(UUID().uuidString)\"", "\"serverErrorCode\":\"\(serverErrorCode)\"",
            "\"reason\":\"the proxy says \(serverErrorCode)\"",
        ]
        if let retryAfter { members.append("\"retryAfter\":\(retryAfter)") }
        return response(
            status: status, headers: [("Content-Type", "application/json")],
            body: "{" + members.joined(separator: ",") + "}")
    }
}

/// A thread-safe count for stateful plans.
public final class FaultProxyCounter: Sendable {
    private let value = Mutex(0)

    /// A count from 0.
    public init() {}

    /// The count before this call; counts one more.
    public func next() -> Int {
        value.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
