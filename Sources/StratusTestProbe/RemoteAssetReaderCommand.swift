import Foundation
import Stratus
import StratusRemote

/// `remote-asset-reader <options> <cache-dir> <limit-bytes> <expected-dir> <record-name>...`:
/// fetches each record of the private default zone in turn through a remote container whose
/// asset cache (decision 0022) is `cache-dir`, trimmed to `limit-bytes`, and reads the file of
/// its `f0` asset at once, which must hold `expected-dir/<record-name>.bin`'s bytes. Two of
/// these share one cache directory in a test: neither may ever be handed a partial or a
/// vanished file. Prints `ok <n> assets read`; a file that is missing or differs fails.
enum RemoteAssetReaderCommand {
    static let name = "remote-asset-reader"
    static let usage =
        "remote-asset-reader \(RemoteProbeOptions.usage) <cache-dir> <limit-bytes> <expected-dir> <record-name>..."

    static func run(_ arguments: [String]) throws {
        var (options, positional) = try RemoteProbeOptions.parse(arguments)
        guard positional.count >= 4, let limit = Int64(positional[1]), limit > 0 else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        options.server.assetCache = RemoteAssetCachePolicy(
            directory: URL(fileURLWithPath: positional[0]), maximumBytes: limit)
        let database = options.container().privateCloudDatabase
        let expected = URL(fileURLWithPath: positional[2])
        for name in positional.dropFirst(3) {
            let record = try RemoteLongLivedCommand.wait {
                database.fetch(withRecordID: CKRecord.ID(recordName: name), completionHandler: $0)
            }
            guard let file = (record["f0"] as? CKAsset)?.fileURL else {
                Probe.fail("record \(name) came back without a file for f0")
            }
            guard let bytes = FileManager.default.contents(atPath: file.path) else {
                Probe.fail("the file of \(name) handed out at \(file.path) cannot be read")
            }
            guard bytes == FileManager.default.contents(atPath: expected.appendingPathComponent("\(name).bin").path)
            else {
                Probe.fail("the file of \(name) at \(file.path) does not hold its content (\(bytes.count) bytes)")
            }
        }
        print("ok \(positional.count - 3) assets read")
    }
}
