import Foundation

extension StratusDaemonProcess {
    /// Stops the server where it is (SIGSTOP): it answers nothing and runs nothing until
    /// killed, so its state cannot move on while a test gets ready to kill it.
    public func freeze() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGSTOP) }
    }

    /// Kills the server at once (SIGKILL, which ends a frozen one too), as a crash would, and
    /// waits until it is gone; its store stays, for a new process started on it.
    public func crash() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A new `stratusd` on the same store and directory, with `arguments` (those of a store
    /// other than the directory's default, and any options), on a new port.
    public func restarted(arguments: [String] = []) throws -> StratusDaemonProcess {
        try StratusDaemonProcess(arguments: arguments, directory: directory)
    }
}
