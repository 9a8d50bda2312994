import Foundation

/// A thread-safe list of what callbacks reported, in order.
final class OpsLog<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) {
        lock.withLock { elements.append(element) }
    }

    var all: [Element] { lock.withLock { elements } }
}

/// The record conveniences of `CKDatabase`: async and completion-handler forms.
