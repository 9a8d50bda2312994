import Foundation
import StratusConfiguration
import StratusRemote
import Testing

/// `remoteAssetCacheBytes` (decision 0022): the size a remote container's asset cache is
/// trimmed to, from the environment or the file, and refused when it is not a byte count.
@Suite("Configuration: the remote asset cache's size")
struct RemoteAssetCacheSettingsTests {
    /// A credentials file for a session.
    private func credentialsFile() throws -> String {
        try TemporaryConfigFile.write(#"{"apiToken": "token", "webAuthToken": "session"}"#)
    }

    @Test func theDefaultIs512MiB() async throws {
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "http://127.0.0.1:8080", "STRATUS_SERVER_CREDENTIALS_FILE": try credentialsFile(),
        ])
        #expect(settings.remote.assetCacheBytes == nil)
        let server = try #require(try settings.remoteServer())
        #expect(server.assetCache.maximumBytes == 512 << 20)
        #expect(server.assetCache.inUseInterval == .seconds(300))
        #expect(server.assetCache == RemoteAssetCachePolicy())
    }

    @Test func theEnvironmentVariableSetsTheLimit() async throws {
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "http://127.0.0.1:8080", "STRATUS_SERVER_CREDENTIALS_FILE": try credentialsFile(),
            "STRATUS_REMOTE_ASSET_CACHE_BYTES": "1048576",
        ])
        #expect(settings.remote.assetCacheBytes == 1_048_576)
        #expect(settings.origins["remoteAssetCacheBytes"] == "environment variable STRATUS_REMOTE_ASSET_CACHE_BYTES")
        #expect(try settings.remoteServer()?.assetCache.maximumBytes == 1_048_576)
    }

    @Test func theFileSetsTheLimit() async throws {
        let file = try TemporaryConfigFile.write(#"{"remoteAssetCacheBytes": 2097152}"#)
        let settings = try await StratusSettings.load(environment: [:], configFile: file)
        #expect(settings.remote.assetCacheBytes == 2_097_152)
    }

    @Test func aValueThatIsNotAByteCountIsRefused() async throws {
        for value in ["0", "-5", "lots"] {
            let error = await #expect(throws: StratusSettingsError.self) {
                try await StratusSettings.load(environment: ["STRATUS_REMOTE_ASSET_CACHE_BYTES": value])
            }
            #expect(error?.key == "remoteAssetCacheBytes", "\(value)")
            #expect(error?.message.contains("a number of bytes, at least 1") == true, "\(String(describing: error))")
        }
    }
}
