public import Foundation

extension CKOperation {
    /// How an operation behaves: its container, quality of service, timeouts and whether it is
    /// long-lived. Explicitly set values win over a group's default configuration.
    public final class Configuration: NSObject, @unchecked Sendable {
        private var explicit: Set<String> = []

        /// The container the operation runs against; the default container when `nil`.
        public var container: CKContainer? { didSet { explicit.insert("container") } }
        /// The operation's quality of service (default `.default`).
        public var qualityOfService: QualityOfService = .default { didSet { explicit.insert("qos") } }
        /// Whether the operation may use cellular data (no effect in Stratus; default `true`).
        public var allowsCellularAccess = true { didSet { explicit.insert("cellular") } }
        /// Whether the operation is long-lived (persisted, replayable). Changing it after the
        /// operation started has no effect.
        public var isLongLived = false { didSet { explicit.insert("longLived") } }
        /// The timeout while waiting for data (default 60 s).
        public var timeoutIntervalForRequest: TimeInterval = 60 { didSet { explicit.insert("request") } }
        /// The most time the operation may take (default one week).
        public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600 {
            didSet { explicit.insert("resource") }
        }

        /// A configuration with CloudKit's defaults.
        public override init() {
            super.init()
        }

        /// This configuration's explicit values over `base`'s explicit values.
        func merged(over base: Configuration) -> Configuration {
            let result = Configuration()
            for source in [base, self] {
                if source.explicit.contains("container") { result.container = source.container }
                if source.explicit.contains("qos") { result.qualityOfService = source.qualityOfService }
                if source.explicit.contains("cellular") { result.allowsCellularAccess = source.allowsCellularAccess }
                if source.explicit.contains("longLived") { result.isLongLived = source.isLongLived }
                if source.explicit.contains("request") {
                    result.timeoutIntervalForRequest = source.timeoutIntervalForRequest
                }
                if source.explicit.contains("resource") {
                    result.timeoutIntervalForResource = source.timeoutIntervalForResource
                }
            }
            return result
        }
    }
}
