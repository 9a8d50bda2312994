import Foundation

/// A configuration file for one test: `json` written to a new file in the temporary folder.
enum TemporaryConfigFile {
    /// Writes `json` to a new file and returns its path.
    static func write(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stratusd-\(UUID()).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
