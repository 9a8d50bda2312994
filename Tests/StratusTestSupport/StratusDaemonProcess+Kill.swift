import Foundation

extension StratusDaemonProcess {
    /// Stops the server where it is (SIGSTOP): it answers nothing and runs nothing until
    /// killed (``kill()``, whose SIGKILL ends a frozen process too), so its state cannot move
    /// on while a test gets ready to kill it.
    public func freeze() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGSTOP) }
    }
}
