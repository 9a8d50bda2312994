import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program the tests start, with the part of Foundation's `Process` they use — and without
/// its crash.
///
/// Swift 6.3.1's `Process.run()` on Linux lists `/proc/self/fd` before every spawn and copies
/// 256 bytes from each directory entry (swift-corelibs-foundation issue 5472, fixed after
/// 6.3.2). Once the test process holds more than about 1,300 descriptors — it does, with the
/// suites running in parallel — glibc's 32 KiB directory buffer fills up, and when it ends at
/// the edge of the heap the copy reads an unmapped page: the whole test run dies with SIGSEGV
/// in `Process.run()`. This type spawns with `posix_spawn` directly and has the child close
/// every descriptor from 3 up (`posix_spawn_file_actions_addclosefrom_np`, which glibc does
/// with `close_range` in the child): nothing is listed in the parent.
public final class ChildProcess: @unchecked Sendable {
    /// The program to run.
    public var executableURL: URL?
    /// Its arguments, after the program's path.
    public var arguments: [String] = []
    /// Its environment; `nil` passes this process's.
    public var environment: [String: String]?
    /// The directory it starts in; `nil` is this process's.
    public var currentDirectoryURL: URL?
    /// Its standard input, output and error: a `FileHandle` (its descriptor is given to the
    /// child; `FileHandle.nullDevice` is `/dev/null`), a `Pipe` (the child gets the right end;
    /// this process closes that end after the spawn), or `nil` for this process's own. Set
    /// back to `nil` once the child runs.
    public var standardInput: Any?
    /// See ``standardInput``.
    public var standardOutput: Any?
    /// See ``standardInput``.
    public var standardError: Any?
    /// Called once, on a thread of its own, when the process has exited.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    private let state = NSCondition()
    private var pid: pid_t = 0
    private var exited = false
    private var status: Int32 = 0
    private var signalled = false
    private var exitTime: ContinuousClock.Instant?

    /// A process to configure, then ``run()``.
    public init() {}

    /// The child's process ID (0 before ``run()``).
    public var processIdentifier: Int32 { locked { pid } }
    /// Whether it was started and has not exited yet.
    public var isRunning: Bool { locked { pid != 0 && !exited } }
    /// Its exit status, or the signal that ended it (see ``terminationReason``).
    public var terminationStatus: Int32 { locked { status } }
    /// When the child was reaped, by its own thread, as soon as it exited: a time that does not
    /// depend on when a waiting test got to run again (`nil` while it runs).
    public var exitedAt: ContinuousClock.Instant? { locked { exitTime } }
    /// Whether it exited or was ended by a signal.
    public var terminationReason: Process.TerminationReason { locked { signalled ? .uncaughtSignal : .exit } }

    /// Starts the program, or throws why it could not.
    public func run() throws {
        guard let path = executableURL?.path else { throw SpawnFailure(description: "no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try redirect(&actions)
        if let directory = currentDirectoryURL?.path {
            try check(Self.addChdir(&actions, directory), "chdir to \(directory)")
        }
        try check(Self.addCloseFrom(&actions, 3), "closefrom")
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in argv + variables { free(pointer) } }
        // Its own process group, as Foundation's `Process` does: a signal to the test run's
        // group (an interrupt at the terminal) is not the child's.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP)), "setpgroup")
        var spawned: pid_t = 0
        try check(posix_spawn(&spawned, path, &actions, &attributes, argv, variables), "spawn \(path)")
        let child = spawned
        closeChildEnds()
        // The child has its own copies now: handing back the parent's lets a handle made for
        // the child alone close, instead of staying open as long as this object lives.
        (standardInput, standardOutput, standardError) = (nil, nil, nil)
        locked { pid = child }
        Thread.detachNewThread { [self] in reap(child) }
    }

    /// Sends SIGTERM.
    public func terminate() {
        let child = processIdentifier
        if child != 0 { _ = kill(child, SIGTERM) }
    }

    /// Waits for the exit, however long it takes.
    public func waitUntilExit() {
        state.lock()
        while !exited { state.wait() }
        state.unlock()
    }

    /// Waits up to `seconds` for the exit: whether it happened.
    public func waitForExit(within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        state.lock()
        defer { state.unlock() }
        while !exited {
            guard state.wait(until: deadline) else { return exited }
        }
        return true
    }

    /// Waits up to `seconds` for the exit without holding a thread while it waits: looks every
    /// 50 ms and sleeps in between. For waits of minutes inside a test — a blocking wait holds
    /// one of the cooperative pool's threads (two on a 2-core machine) and starves the tests
    /// that run beside it.
    public func exited(within seconds: TimeInterval) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if waitForExit(within: 0) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return waitForExit(within: 0)
    }

    /// Waits for the child on this thread, records how it ended and tells the waiters.
    private func reap(_ child: pid_t) {
        var raw: Int32 = 0
        while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
        let now = ContinuousClock.now
        let signal = raw & 0x7F
        locked {
            exitTime = now
            exited = true
            signalled = signal != 0
            status = signal != 0 ? signal : (raw >> 8) & 0xFF
            state.broadcast()
        }
        terminationHandler?(self)
    }

    /// Gives the child its standard input, output and error.
    private func redirect(_ actions: inout posix_spawn_file_actions_t) throws {
        for (stream, target) in [
            (standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO),
        ] {
            let descriptor: Int32?
            switch stream {
            case let pipe as Pipe:
                descriptor =
                    target == STDIN_FILENO
                    ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
            case let handle as FileHandle where handle === FileHandle.nullDevice || handle.fileDescriptor < 0:
                try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0), "open /dev/null")
                descriptor = nil
            case let handle as FileHandle: descriptor = handle.fileDescriptor
            default: descriptor = nil
            }
            if let descriptor {
                try check(posix_spawn_file_actions_adddup2(&actions, descriptor, target), "redirect \(target)")
            }
        }
    }

    /// Closes, in this process, the pipe ends the child got.
    private func closeChildEnds() {
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = standardError as? Pipe { try? pipe.fileHandleForWriting.close() }
    }

    private func locked<T>(_ body: () -> T) -> T {
        state.lock()
        defer { state.unlock() }
        return body()
    }

    private func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else {
            throw SpawnFailure(description: "\(what): \(String(cString: strerror(result)))")
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` and `…_addchdir_np` (2.34 and 2.29
    /// and later), which Swift's Glibc module does not declare: looked up by name.
    private static let addCloseFrom = glibcFunction(
        "posix_spawn_file_actions_addclosefrom_np",
        as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    private static let addChdir = glibcFunction(
        "posix_spawn_file_actions_addchdir_np",
        as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)

    private static func glibcFunction<Function>(_ name: String, as type: Function.Type) -> Function {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("this C library has no \(name) (glibc 2.34 or later is needed)")
        }
        return unsafeBitCast(symbol, to: type)
    }

    /// A program that could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        /// What failed.
        public var description: String
    }
}
