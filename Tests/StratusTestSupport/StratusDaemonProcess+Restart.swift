import Foundation

extension StratusDaemonProcess {
    /// Ends the server at once with SIGKILL, as a crash would (no graceful shutdown), and waits
    /// for the process to exit.
    public func kill() {
        guard process.isRunning else { return }
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
        _ = process.waitForExit(within: 60)
    }

    /// A new `stratusd` on the same store and the same port as this one, which must have
    /// stopped (``stop()`` or ``kill()``): clients keep their URL. Binding the port is retried
    /// for up to 30 s, in case the old sockets linger.
    ///
    /// The caller stops the new process; it does not own the directory.
    public func restarted(arguments: [String] = [], environment: [String: String] = [:]) throws
        -> StratusDaemonProcess
    {
        guard let port = baseURL.port else {
            throw StartFailure(description: "\(baseURL) names no port to start on again")
        }
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                return try StratusDaemonProcess(
                    arguments: ["--port", String(port)] + arguments, environment: environment, directory: directory)
            } catch is StartFailure where Date() < deadline {
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }
}
