import Foundation
import Stratus
import StratusServer
import Testing

/// `authReplayGuard = memory` (decision 0013.6): the replay guard kept in the process,
/// driven by the authenticator's injected clock.
@Suite("Auth: the in-memory replay guard")
struct MemoryReplayGuardTests {
    typealias Signer = ServerToServerTests.Signer
    static let now = ServerToServerTests.now

    /// Both steps of a signed request, as a route runs them, at `time`.
    private func send(_ authenticator: Authenticator, _ credentials: PresentedCredentials, at time: Date) throws
        -> Authentication
    {
        let pending = try authenticator.authenticate(
            container: "iCloud.s2s", environment: .development, credentials: credentials, now: time)
        return try authenticator.complete(
            pending, body: ServerToServerTests.body, rawPath: ServerToServerTests.path, now: time)
    }

    /// The refusal `body` throws, if it throws one.
    private func refusal(_ body: () throws -> Authentication) -> AuthFailure? {
        do {
            let accepted = try body()
            Issue.record("accepted as \(accepted.identity)")
            return nil
        } catch let failure as AuthFailure {
            return failure
        } catch {
            Issue.record("\(error)")
            return nil
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aReplayIsRefusedWithoutWritingTheStore(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let authenticator = Authenticator(store: store, replayGuard: .memory(capacity: 10))
            let credentials = try signer.sign()
            _ = try send(authenticator, credentials, at: Self.now)
            guard
                case .authenticationFailed(let reason) = refusal({ try send(authenticator, credentials, at: Self.now) })
            else {
                Issue.record("a replay was not refused as such")
                return
            }
            #expect(reason.contains("replay"))
            #expect(try store.replayGuardEntryCount() == 0, "the memory guard writes nothing to the store")
            _ = try signer.send(try signer.sign())
            #expect(try store.replayGuardEntryCount() == 1, "the stored guard, for comparison, does")
        }
    }

    @Test func itHoldsAtMostItsCapacityAndEvictsWhatLeftTheWindow() throws {
        try AuthTestBackend.memory.withStore { store in
            let signer = try Signer(store)
            let authenticator = Authenticator(store: store, signatureMaxAge: 30, replayGuard: .memory(capacity: 2))
            for _ in 0..<2 { _ = try send(authenticator, try signer.sign(date: Self.now), at: Self.now) }
            let beyond = try signer.sign(date: Self.now)
            guard case .busy = refusal({ try send(authenticator, beyond, at: Self.now) }) else {
                Issue.record("a third signature within the window was not refused as busy")
                return
            }
            // A 30 s window and a minute's margin: the two are held 89 s on, evicted after 91 s.
            let inside = Self.now.addingTimeInterval(89)
            let held = try signer.sign(date: inside)
            guard case .busy = refusal({ try send(authenticator, held, at: inside) }) else {
                Issue.record("entries inside the window were evicted")
                return
            }
            let later = Self.now.addingTimeInterval(91)
            _ = try send(authenticator, try signer.sign(date: later), at: later)
            try authenticator.purgeReplayGuard(now: later.addingTimeInterval(91))
            for _ in 0..<2 {
                let time = later.addingTimeInterval(91)
                _ = try send(authenticator, try signer.sign(date: time), at: time)
            }
        }
    }
}
