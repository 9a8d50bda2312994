import Synchronization

/// The undo steps of the last write committed on one storage, shared by its handles.
final class LastWriteLog: Sendable {
    private let steps = Mutex<[UndoStep]>([])

    /// Remembers `undo` as the last write's, forgetting the one before.
    func replace(with undo: [UndoStep]) {
        steps.withLock { $0 = undo }
    }

    /// The last write's undo steps, forgetting them.
    func take() -> [UndoStep] {
        steps.withLock { steps in
            defer { steps = [] }
            return steps
        }
    }
}
