import Foundation
import Testing

/// The README's quick start on a fresh machine (issue 10): its run command and its test command
/// install the system libraries the build needs before anything builds when run as root, and
/// stop at once with the exact `apt-get` line otherwise. Run against stand-ins for `apt-get`,
/// `pkg-config`, `dpkg-query`, `id` and `swift` (``FreshMachine``), so nothing is installed
/// and nothing is built.
@Suite("Fresh machine: the README's commands install what the build needs")
struct FreshMachineTests {
    private func quickStart() throws -> (run: String, test: String) {
        let commands = try FreshMachine.quickStartCommands()
        try #require(commands.count == 2, "the README's quick start has two commands: \(commands)")
        return (commands[0], commands[1])
    }

    @Test func theRunCommandInstallsLMDBAsRootBeforeBuilding() throws {
        let run = try quickStart().run
        let outcome = try FreshMachine.run(run, .init(userID: 0, missingModules: ["lmdb"]))
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(outcome.calls(of: "apt-get") == ["apt-get update -qq", "apt-get install -y -qq liblmdb-dev"])
        let install = try #require(outcome.firstCall("apt-get install"))
        let build = try #require(outcome.firstCall("swift "), "the command never built Stratus: \(outcome.calls)")
        #expect(install < build)
        #expect(outcome.calls(of: "swift").first?.hasSuffix(" stratus demo") == true, "\(outcome.calls)")
        #expect(outcome.errorOutput.contains("installing the system packages Stratus builds against: liblmdb-dev"))
    }

    @Test func everyMissingLibraryIsAskedForInOneInstall() throws {
        let run = try quickStart().run
        let outcome = try FreshMachine.run(run, .init(missingModules: ["sqlite3", "lmdb", "libpq"]))
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(outcome.calls(of: "apt-get").last == "apt-get install -y -qq libsqlite3-dev liblmdb-dev libpq-dev")
    }

    @Test func withoutPKGConfigItIsInstalledTooAndPackagesAreCheckedWithDpkg() throws {
        let run = try quickStart().run
        let outcome = try FreshMachine.run(run, .init(missingPackages: ["liblmdb-dev"], hasPKGConfig: false))
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(outcome.calls(of: "apt-get").last == "apt-get install -y -qq pkg-config liblmdb-dev")
        #expect(outcome.calls(of: "dpkg-query").count == 3)
    }

    @Test func nothingIsInstalledWhenEverythingIsThere() throws {
        let run = try quickStart().run
        let outcome = try FreshMachine.run(run, .init(userID: 1000))
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(outcome.calls(of: "apt-get").isEmpty)
        #expect(outcome.calls(of: "swift").count == 1)
        #expect(outcome.errorOutput.isEmpty, "\(outcome.errorOutput)")
    }

    @Test func aNonRootUserIsToldTheExactCommandAndNothingRuns() throws {
        let run = try quickStart().run
        let outcome = try FreshMachine.run(run, .init(userID: 1000, missingModules: ["lmdb", "libpq"]))
        #expect(outcome.status == 1)
        #expect(outcome.calls(of: "apt-get").isEmpty)
        #expect(outcome.calls(of: "swift").isEmpty)
        #expect(outcome.errorOutput.contains("Stratus needs these system packages to build: liblmdb-dev libpq-dev"))
        #expect(
            outcome.errorOutput.contains("    sudo apt-get update && sudo apt-get install -y liblmdb-dev libpq-dev\n"))
    }

    @Test func aFailedInstallStopsBeforeTheBuild() throws {
        let run = try quickStart().run
        let outcome = try FreshMachine.run(run, .init(missingModules: ["lmdb"], aptGetFails: true))
        #expect(outcome.status == 1)
        #expect(outcome.calls(of: "swift").isEmpty)
        #expect(outcome.errorOutput.contains("apt-get could not install liblmdb-dev"))
    }

    /// A PostgreSQL URL of its own keeps the test command from starting a server; the real
    /// fresh-root check (debootstrap, mount, chroot) and the schemathesis run (a live stratusd)
    /// are not for stand-ins.
    private static let testCommandEnvironment = [
        "STRATUS_TEST_POSTGRES_URL": "postgresql://postgres@127.0.0.1:1/none", "STRATUS_FRESH_ROOT_CHECK": "no",
        "STRATUS_SCHEMATHESIS": "no",
    ]

    @Test func theTestCommandInstallsBeforeItBuildsOrLints() throws {
        let test = try quickStart().test
        let outcome = try FreshMachine.run(
            test, .init(missingModules: ["lmdb"]),
            environment: Self.testCommandEnvironment)
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        // The stand-ins' PATH has no python3: schemathesis's python3-venv is installed with the libraries.
        #expect(outcome.calls(of: "apt-get").last == "apt-get install -y -qq liblmdb-dev python3-venv")
        let install = try #require(outcome.firstCall("apt-get install -y -qq liblmdb-dev"), "\(outcome.calls)")
        let firstSwift = try #require(outcome.firstCall("swift "), "\(outcome.calls)")
        #expect(install < firstSwift)
        #expect(outcome.firstCall("swift build") != nil)
        #expect(outcome.firstCall("swift test") != nil)
        #expect(outcome.firstCall("swift package --disable-sandbox generate-documentation") != nil, "\(outcome.calls)")
    }

    @Test func theTestCommandStopsANonRootUserFirst() throws {
        let test = try quickStart().test
        let outcome = try FreshMachine.run(
            test, .init(userID: 1000, missingModules: ["lmdb"]),
            environment: Self.testCommandEnvironment)
        #expect(outcome.status == 1)
        #expect(outcome.calls(of: "swift").isEmpty)
        #expect(outcome.errorOutput.contains("sudo apt-get install -y liblmdb-dev python3-venv\n"))
    }
}
