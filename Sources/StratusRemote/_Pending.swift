// TEMPORARY: stand-ins for the helper's StratusWebServices client API, until it merges.
import Foundation
import Stratus
import StratusWebServices

extension WSRecordTranslator {
    func serverRecord(from json: JSONValue, defaultZone: CKRecordZone.ID) throws(WSTranslationError) -> CKRecord {
        fatalError()
    }
    func requestDictionary(for record: CKRecord, keys: [String]) -> JSONValue { fatalError() }
}
enum WSErrorReader {
    static func error(from json: JSONValue, status: Int?, translator: WSRecordTranslator) -> CKError { fatalError() }
}
enum WSZoneCoding {
    static func zone(from json: JSONValue, translator: WSRecordTranslator) throws(WSTranslationError) -> CKRecordZone {
        fatalError()
    }
}
struct WSQueryTranslator {
    var translator: WSRecordTranslator
    var zone: CKRecordZone.ID
    func dictionary(for query: CKQuery) throws(WSTranslationError) -> JSONValue { fatalError() }
}
struct WSSubscriptionTranslator {
    var translator: WSRecordTranslator
    func dictionary(for subscription: CKSubscription) throws -> JSONValue { fatalError() }
    func subscription(from json: JSONValue) throws(WSTranslationError) -> CKSubscription { fatalError() }
}
