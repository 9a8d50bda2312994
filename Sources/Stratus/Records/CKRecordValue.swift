public import Foundation

/// A value a record field can hold: strings, numbers, dates, data, references, assets,
/// locations, and arrays of these — as in CloudKit.
///
/// Anything else cannot be stored: CloudKit raises an exception; Stratus rejects the save with
/// `CKError.invalidArguments` naming the field.
public protocol CKRecordValueProtocol {}

/// The type of a record field's value (CloudKit's `CKRecordValue`).
public typealias CKRecordValue = CKRecordValueProtocol

extension String: CKRecordValueProtocol {}
extension Int: CKRecordValueProtocol {}
extension Int8: CKRecordValueProtocol {}
extension Int16: CKRecordValueProtocol {}
extension Int32: CKRecordValueProtocol {}
extension Int64: CKRecordValueProtocol {}
extension UInt: CKRecordValueProtocol {}
extension UInt8: CKRecordValueProtocol {}
extension UInt16: CKRecordValueProtocol {}
extension UInt32: CKRecordValueProtocol {}
extension UInt64: CKRecordValueProtocol {}
extension Double: CKRecordValueProtocol {}
extension Float: CKRecordValueProtocol {}
extension Bool: CKRecordValueProtocol {}
extension Date: CKRecordValueProtocol {}
extension Data: CKRecordValueProtocol {}
extension NSString: CKRecordValueProtocol {}
extension NSNumber: CKRecordValueProtocol {}
extension NSDate: CKRecordValueProtocol {}
extension NSData: CKRecordValueProtocol {}
extension NSArray: CKRecordValueProtocol {}
extension Array: CKRecordValueProtocol where Element: CKRecordValueProtocol {}
