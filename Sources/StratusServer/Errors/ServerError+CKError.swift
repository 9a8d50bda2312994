import Hummingbird
internal import Stratus
internal import StratusWebServices

extension ServerError {
    /// The whole-request refusal for an engine error: ``ErrorTable``'s row. The status keeps no
    /// reason phrase of its own; HTTP/1.1 writes the standard one for the code, as for the named
    /// statuses.
    init(_ error: CKError) {
        let row = ErrorTable.row(for: error.code)
        self.init(
            HTTPResponse.Status(code: row.status), row.serverErrorCode,
            ErrorTable.mayShowReason(of: error)
                ? error.localizedDescription : Self.internalFailureReason,
            retryAfter: ErrorTable.retryAfter(for: error), stratusErrorCode: error.code.name)
    }
}
