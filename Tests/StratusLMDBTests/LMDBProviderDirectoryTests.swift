import Foundation
import StratusBackend
import StratusLMDB
import Testing

/// The provider creates an environment's directory with its missing parents, and names the
/// path when it cannot.
@Suite("LMDB provider: directories")
struct LMDBProviderDirectoryTests {
    @Test func createsMissingParents() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let path = storage.path + "/data/deeper/env"
        let backend = try BackendRegistry([LMDBBackendProvider()]).makeBackend(for: "lmdb://" + path)
        try backend.write { try $0.set([1], [2]) }
        try backend.close()
        #expect(FileManager.default.fileExists(atPath: path + "/data.mdb"))
    }

    @Test func aParentThatIsAFileIsNamed() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let file = storage.path + "/data"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let url = "lmdb://\(file)/env"
        let error = #expect(throws: BackendConfigurationError.self) {
            try BackendRegistry([LMDBBackendProvider()]).makeBackend(for: url)
        }
        #expect(error?.code == .invalidLocation)
        #expect(
            error?.message
                == "invalid location in '\(url)': cannot create the directory '\(file)/env': '\(file)' exists and is not a directory"
        )
    }
}
