public import Foundation
import Synchronization

/// The abstract base class of every CloudKit operation: an asynchronous `Foundation.Operation`
/// that runs on any `OperationQueue` (or through `CKDatabase.add(_:)`), with dependencies,
/// cancellation, quality of service, priority and `completionBlock`.
///
/// All callbacks of one operation run serially, in order, on the operation's own serial
/// queue. Do not subclass it; use a concrete operation.
open class CKOperation: Operation, @unchecked Sendable {
    /// An operation's unique identifier.
    public typealias ID = String

    /// The operation's configuration (container, quality of service, long-lived flag, …).
    public var configuration: CKOperation.Configuration! {
        get { lock.withLock { _configuration } }
        set { lock.withLock { _configuration = newValue ?? Configuration() } }
    }
    private var _configuration = Configuration()

    /// The group the operation belongs to.
    public var group: CKOperationGroup? {
        get { lock.withLock { _group } }
        set { lock.withLock { _group = newValue } }
    }
    private var _group: CKOperationGroup?

    /// Whether the operation is long-lived: the same as `configuration.isLongLived`.
    ///
    /// Deprecated on Apple's platforms since 2017 and still declared there, as here, so code
    /// that sets it on the path for old systems compiles unchanged.
    @available(macOS, deprecated: 10.13, message: "Use CKOperationConfiguration")
    @available(iOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(tvOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(watchOS, deprecated: 4.0, message: "Use CKOperationConfiguration")
    public var isLongLived: Bool {
        get { configuration.isLongLived }
        set { configuration.isLongLived = newValue }
    }

    /// Whether the operation may use cellular data: the same as `configuration.allowsCellularAccess`, deprecated on Apple's platforms and
    /// still declared there, as here.
    @available(macOS, deprecated: 10.13, message: "Use CKOperationConfiguration")
    @available(iOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(tvOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(watchOS, deprecated: 4.0, message: "Use CKOperationConfiguration")
    public var allowsCellularAccess: Bool {
        get { configuration.allowsCellularAccess }
        set { configuration.allowsCellularAccess = newValue }
    }

    /// The container the operation runs against: the same as `configuration.container`, deprecated on Apple's platforms and
    /// still declared there, as here.
    @available(macOS, deprecated: 10.13, message: "Use CKOperationConfiguration")
    @available(iOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(tvOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(watchOS, deprecated: 4.0, message: "Use CKOperationConfiguration")
    public var container: CKContainer? {
        get { configuration.container }
        set { configuration.container = newValue }
    }

    /// Seconds a request may wait for data: the same as `configuration.timeoutIntervalForRequest`, deprecated on Apple's platforms and
    /// still declared there, as here.
    @available(macOS, deprecated: 10.13, message: "Use CKOperationConfiguration")
    @available(iOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(tvOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(watchOS, deprecated: 4.0, message: "Use CKOperationConfiguration")
    public var timeoutIntervalForRequest: TimeInterval {
        get { configuration.timeoutIntervalForRequest }
        set { configuration.timeoutIntervalForRequest = newValue }
    }

    /// Seconds the whole operation may take: the same as `configuration.timeoutIntervalForResource`, deprecated on Apple's platforms and
    /// still declared there, as here.
    @available(macOS, deprecated: 10.13, message: "Use CKOperationConfiguration")
    @available(iOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(tvOS, deprecated: 11.0, message: "Use CKOperationConfiguration")
    @available(watchOS, deprecated: 4.0, message: "Use CKOperationConfiguration")
    public var timeoutIntervalForResource: TimeInterval {
        get { configuration.timeoutIntervalForResource }
        set { configuration.timeoutIntervalForResource = newValue }
    }

    /// The operation's unique identifier, chosen by the system.
    public internal(set) var operationID: CKOperation.ID = UUID().uuidString

    /// Called once the operation has been persisted as long-lived.
    public var longLivedOperationWasPersistedBlock: (() -> Void)? {
        get { lock.withLock { _persistedBlock } }
        set { lock.withLock { _persistedBlock = newValue } }
    }
    private var _persistedBlock: (() -> Void)?

    let lock = NSRecursiveLock()
    private var _executing = false
    private var _finished = false

    /// The serial queue every callback of this operation runs on.
    lazy var callbackQueue = DispatchQueue(
        label: "stratus.operation.\(type(of: self)).\(operationID)", qos: dispatchQoS)

    /// Creates an operation with the default configuration.
    public override init() {
        super.init()
    }

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { _executing } }
    open override var isFinished: Bool { lock.withLock { _finished } }

    open override func start() {
        if isFinished || isExecuting { return }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { _executing = true }
        didChangeValue(forKey: "isExecuting")
        callbackQueue.async {
            if self.isCancelled {
                self.deliverCompletion(error: CKError.make(.operationCancelled, "the operation was cancelled"))
            } else {
                self.performOperation()
            }
            self.finishOperation()
        }
    }

    /// The operation's work, run on `callbackQueue`; subclasses override it and deliver
    /// every callback, the final one included, before returning.
    func performOperation() {
        deliverCompletion(error: CKError.make(.internalError, "CKOperation is abstract: use a concrete operation"))
    }

    /// Delivers the operation's final callback with `error` (used for cancellation before
    /// start and for failures found before any work). Subclasses override it.
    func deliverCompletion(error: CKError) {}

    /// The error to report if the operation was cancelled, else `nil`.
    var cancellationError: CKError? {
        isCancelled ? CKError.make(.operationCancelled, "the operation was cancelled") : nil
    }

    private func finishOperation() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock {
            _executing = false
            _finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }

    /// The effective configuration: the operation's explicit values, then the group's
    /// default configuration's explicit values, then the defaults.
    var resolvedConfiguration: Configuration {
        let own = configuration ?? Configuration()
        guard let groupDefault = group?.defaultConfiguration else { return own }
        return own.merged(over: groupDefault)
    }

    /// The dispatch quality of service of the operation's resolved configuration.
    var dispatchQoS: DispatchQoS {
        switch resolvedConfiguration.qualityOfService {
        case .userInteractive: return .userInteractive
        case .userInitiated: return .userInitiated
        case .utility: return .utility
        case .background: return .background
        default: return .default
        }
    }
}
