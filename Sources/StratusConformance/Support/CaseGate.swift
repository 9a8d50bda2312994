/// Bounds how many conformance cases run at once in a process.
///
/// Each running case blocks a thread of its own (its body waits for operations and backend
/// calls, ``SerialQueueExecutor``), and the operations it waits for need threads too. A test
/// runner starts every parameterized case at once: hundreds of blocked case threads reach
/// Dispatch's thread limit, and then the operations they wait for never get a thread — every
/// case hangs. Cases wait here, without holding a thread, until one of ``limit`` slots is free.
actor CaseGate {
    /// The gate every case of this process goes through.
    static let shared = CaseGate(limit: 24)

    /// The most cases running at once.
    let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// `body`'s result, run once a slot is free.
    nonisolated func withSlot<T>(_ body: () async throws -> T) async rethrows -> T {
        await enter()
        do {
            let result = try await body()
            await leave()
            return result
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the next waiting case, or frees it.
    private func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
