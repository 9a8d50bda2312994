import StratusBackend

extension KeyValueCases {
    /// `kv.lifecycle.*`: closing handles.
    static var lifecycle: [ConformanceCase] {
        [closeIsIdempotent, closedHandleThrowsClosed, closeLeavesOtherHandlesOpen]
    }

    static let closeIsIdempotent = ConformanceCase(
        "kv.lifecycle.closeIsIdempotent",
        "Closing a handle twice is harmless."
    ) { context in
        let backend = try context.open()
        try context.put(backend, [KeyValuePair("k", "v")])
        context.step("close the handle")
        try context.must("the first close succeeds") { try backend.close() }
        context.step("close it again")
        try context.must("the second close succeeds") { try backend.close() }
    }

    static let closedHandleThrowsClosed = ConformanceCase(
        "kv.lifecycle.closedHandleThrowsClosed",
        "read and write on a closed handle throw BackendError with code .closed without "
            + "running their bodies."
    ) { context in
        let backend = try context.open()
        try context.put(backend, [KeyValuePair("k", "v")])
        context.step("close the handle")
        try context.close(backend)

        let attempts: [(String, () throws -> Void)] = [
            ("read", { try backend.read { _ in throw BodyRan() } }),
            ("write", { try backend.write { _ in throw BodyRan() } }),
        ]
        for (name, attempt) in attempts {
            context.step("\(name) on the closed handle")
            do {
                try attempt()
                throw context.failure(
                    expected: "\(name) throws BackendError(.closed)", actual: "it returned")
            } catch let error as BackendError {
                try context.expectEqual(error.code, .closed, "the code of the error \(name) threw")
            } catch is BodyRan {
                throw context.failure(
                    expected: "\(name) throws BackendError(.closed) without running its body",
                    actual: "the body ran")
            } catch let failure as ConformanceFailure {
                throw failure
            } catch {
                throw context.failure(
                    expected: "\(name) throws BackendError(.closed)", actual: "\(error)")
            }
        }
    }

    /// Thrown by a body that should never have run.
    private struct BodyRan: Error {}

    static let closeLeavesOtherHandlesOpen = ConformanceCase(
        "kv.lifecycle.closeLeavesOtherHandlesOpen",
        "Closing one handle leaves another handle on the same storage working, with all data."
    ) { context in
        let first = try context.open()
        let second = try context.open()
        context.step("write a=1 through the first handle, then close it")
        try context.put(first, [KeyValuePair("a", "1")])
        try context.close(first)

        context.step("write and read through the second handle")
        try context.put(second, [KeyValuePair("b", "2")])
        try context.expectPairs(
            try context.allPairs(second), [KeyValuePair("a", "1"), KeyValuePair("b", "2")],
            "every pair through the second handle")
    }
}
