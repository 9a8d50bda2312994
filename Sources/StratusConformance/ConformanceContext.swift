public import StratusBackend
import Synchronization

/// What a case body works with: its storage, backend handles, and the labelled trace that a
/// ``ConformanceFailure`` carries.
public final class ConformanceContext: Sendable {
    /// The ID of the running case.
    public let caseID: String
    /// The storage the fixture made for this case.
    public let storage: any FixtureStorage

    private struct State {
        var step = "start"
        var trace: [String] = []
        var handles: [any DatabaseBackend] = []
    }
    private let state = Mutex(State())

    init(caseID: String, storage: any FixtureStorage) {
        self.caseID = caseID
        self.storage = storage
    }

    /// Starts a new labelled step; failures name the current step and carry every step so far.
    public func step(_ label: String) {
        state.withLock {
            $0.step = label
            $0.trace.append(label)
        }
    }

    /// Opens a backend handle on the case's storage; it is closed when the case ends.
    public func open() throws -> any DatabaseBackend {
        let backend: any DatabaseBackend
        do {
            backend = try storage.open()
        } catch {
            throw failure(expected: "the storage opens", actual: "error: \(error)")
        }
        state.withLock { $0.handles.append(backend) }
        return backend
    }

    /// Closes `backend` (before a reopen, say).
    public func close(_ backend: any DatabaseBackend) throws {
        state.withLock { $0.handles.removeAll { $0 === backend } }
        do { try backend.close() } catch {
            throw failure(expected: "the backend closes", actual: "error: \(error)")
        }
    }

    func closeAll() {
        let handles = state.withLock { s -> [any DatabaseBackend] in
            defer { s.handles.removeAll() }
            return s.handles
        }
        for handle in handles { try? handle.close() }
    }

    /// A failure of this case at the current step.
    public func failure(expected: String, actual: String) -> ConformanceFailure {
        state.withLock {
            ConformanceFailure(
                caseID: caseID, step: $0.step, expected: expected, actual: actual, trace: $0.trace)
        }
    }

    /// Fails the case unless `condition` holds.
    public func expect(
        _ condition: Bool, _ expected: @autoclosure () -> String,
        actual: @autoclosure () -> String = "it did not"
    ) throws {
        if !condition { throw failure(expected: expected(), actual: actual()) }
    }

    /// Fails the case unless `actual` equals `expected`.
    public func expectEqual<T: Equatable>(
        _ actual: T, _ expected: T, _ what: @autoclosure () -> String
    ) throws {
        if actual != expected {
            throw failure(expected: "\(what()) == \(expected)", actual: "\(actual)")
        }
    }

    /// Runs `body`, failing the case with `what` if it throws.
    public func must<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ConformanceFailure {
            throw error
        } catch {
            throw failure(expected: what(), actual: "error: \(error)")
        }
    }
}
