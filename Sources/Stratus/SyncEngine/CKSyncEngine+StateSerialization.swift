import Foundation

extension CKSyncEngine.State {
    /// The engine's state, to persist on each ``CKSyncEngine/Event/stateUpdate(_:)`` event and to
    /// pass back in ``CKSyncEngine/Configuration`` at the next launch. It holds the database and
    /// zone change tokens and the pending changes.
    public struct Serialization: Codable, Sendable, CustomStringConvertible {
        let stored: SyncEngineStoredState

        init(_ stored: SyncEngineStoredState) {
            self.stored = stored
        }

        /// Decodes a serialization that ``encode(to:)`` wrote.
        public init(from decoder: any Decoder) throws {
            stored = try SyncEngineStoredState(from: decoder)
        }

        /// Encodes the serialization.
        public func encode(to encoder: any Encoder) throws {
            try stored.encode(to: encoder)
        }

        /// A short description, for logs.
        public var description: String {
            "CKSyncEngine.State.Serialization(zones: \(stored.zoneTokens.count), "
                + "pendingRecordZoneChanges: \(stored.pendingRecordZoneChanges.count), "
                + "pendingDatabaseChanges: \(stored.pendingDatabaseChanges.count))"
        }
    }
}
