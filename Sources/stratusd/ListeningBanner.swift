import Foundation

/// Prints what `stratusd serve` tells its user once both listeners are up. The first line is
/// always `stratusd listening on <URL> — backend <location>` (scripts and tests read it); the
/// second `stratusd metrics on <URL>`.
actor ListeningBanner {
    private let scheme: String
    private let location: String
    private var api: String?
    private var metrics: String?

    /// A banner for an API served over `scheme` from the store at `location`.
    init(scheme: String, location: String) {
        self.scheme = scheme
        self.location = location
    }

    /// The API listener is up at `host:port`.
    func apiListening(host: String, port: Int) {
        api = "\(scheme)://\(Self.authority(host, port))"
        printIfComplete()
    }

    /// The metrics listener is up at `host:port`.
    func metricsListening(host: String, port: Int) {
        metrics = "http://\(Self.authority(host, port))/metrics"
        printIfComplete()
    }

    private func printIfComplete() {
        guard let api, let metrics else { return }
        let banner = """
            stratusd listening on \(api) — backend \(location)
            stratusd metrics on \(metrics)
              health:      curl \(api)/health
              container:   stratusd admin container create NAME
              API token:   stratusd admin token create --container NAME --environment development
              a session:   stratusd admin session create --container NAME --environment development \
            --user ID
              then:        curl -X POST '\(api)/database/1/NAME/development/public/records/lookup\
            ?ckAPIToken=TOKEN' -d '{"records": [{"recordName": "x"}]}'   (Docs/Server.md)

            """
        FileHandle.standardOutput.write(Data(banner.utf8))
    }

    /// `host:port`, with an IPv6 host in brackets.
    private static func authority(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
