import Foundation

@testable import StratusServer

extension AuthStore {
    /// Makes `container` (its development environment) and users named `names` as they are, for
    /// tests of couriers: a courier is refused unless its container and user are enabled.
    func makeTestUsers(_ names: [String], in container: String) throws {
        _ = try createContainer(container, environments: [.development])
        try data.write { writer in
            for name in names {
                let entry = UserEntry(
                    container: container, userRecordName: name, externalID: name, created: Date(), disabled: nil)
                try writer.set(Self.key(Self.userPrefix, container, name), Self.encode(entry))
            }
        }
    }
}
