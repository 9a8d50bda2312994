public import Foundation

/// A group of related operations, with a default configuration for its members.
public final class CKOperationGroup: NSObject, @unchecked Sendable {
    /// The approximate size of a group's transfers.
    public enum TransferSize: Int, Sendable {
        case unknown = 0
        case kilobytes, megabytes, tensOfMegabytes, hundredsOfMegabytes, gigabytes,
            tensOfGigabytes, hundredsOfGigabytes
    }

    /// The group's unique identifier.
    public let operationGroupID: String = UUID().uuidString
    /// The configuration operations of the group use unless they set their own values.
    public var defaultConfiguration = CKOperation.Configuration()
    /// A name for the group, for logs.
    public var name: String?
    /// How many items the group's operations handle.
    public var quantity: Int = 0
    /// The expected upload size.
    public var expectedSendSize: TransferSize = .unknown
    /// The expected download size.
    public var expectedReceiveSize: TransferSize = .unknown

    /// A new, empty group.
    public override init() {
        super.init()
    }
}
