/// An interface for providing record data to a sync engine and customizing its behavior.
///
/// The engine delivers events serially: the delegate receives the next event only after it has
/// returned from handling the current one. Do not call `fetchChanges(_:)` or `sendChanges(_:)`
/// from ``handleEvent(_:syncEngine:)``.
public protocol CKSyncEngineDelegate: AnyObject, Sendable {
    /// Tells the delegate to handle the specified sync event.
    ///
    /// On a ``CKSyncEngine/Event/stateUpdate(_:)`` event, persist the attached serialization with
    /// the app's data and pass it back in ``CKSyncEngine/Configuration`` at the next launch.
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async

    /// Asks the delegate for the next set of record changes to send to the server; `nil` when
    /// there are none.
    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.RecordZoneChangeBatch?

    /// Asks the delegate for the options of the next fetch. The default returns the context's
    /// options.
    func nextFetchChangesOptions(
        _ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.FetchChangesOptions
}

extension CKSyncEngineDelegate {
    /// Returns the options from `context`.
    public func nextFetchChangesOptions(
        _ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.FetchChangesOptions {
        context.options
    }
}
