import Foundation
package import Stratus

/// One JSON value as one record value of a scalar type.
extension WSRecordTranslator {
    func string(_ value: JSONValue) throws(WSValueProblem) -> String {
        guard case .string(let s) = value else { throw .expected("a string", found: value) }
        return s
    }

    /// An integer; also an integral decimal (`1e3`), `true`/`false` (1/0) or a numeric string.
    func int64(_ value: JSONValue) throws(WSValueProblem) -> Int64 {
        switch value {
        case .integer(let i):
            return i
        case .bool(let b):
            return b ? 1 : 0
        case .double(let d):
            guard let i = Int64(exactly: d) else {
                throw WSValueProblem("\(value.briefDescription) is not a whole number in INT64's range")
            }
            return i
        case .string(let s):
            guard let number = JSONValue.number(fromString: s) else {
                throw .expected("an integer or an integer string", found: value)
            }
            return try int64(number)
        default:
            throw .expected("an integer or an integer string", found: value)
        }
    }

    /// A finite double, from any number or a numeric string; `"NaN"`, `"Infinity"` refused.
    func double(_ value: JSONValue) throws(WSValueProblem) -> Double {
        switch value {
        case .double(let d):
            guard d.isFinite else { throw WSValueProblem("non-finite numbers are not accepted") }
            return d
        case .integer(let i):
            return Double(i)
        case .string(let s):
            if let number = JSONValue.number(fromString: s) { return try double(number) }
            if ["nan", "infinity", "-infinity", "inf", "-inf", "+infinity"].contains(s.lowercased()) {
                throw WSValueProblem("non-finite numbers are not accepted, found \(value.briefDescription)")
            }
            throw .expected("a number or a numeric string", found: value)
        default:
            throw .expected("a number or a numeric string", found: value)
        }
    }

    /// Bytes from base64 (padding optional).
    func bytes(_ value: JSONValue) throws(WSValueProblem) -> Data {
        guard case .string(let s) = value else { throw .expected("a base64 string", found: value) }
        let padded = s.utf8.count % 4 == 0 ? s : s + String(repeating: "=", count: 4 - s.utf8.count % 4)
        guard let data = Data(base64Encoded: padded) else {
            throw WSValueProblem("\(value.briefDescription) is not valid base64")
        }
        return data
    }

    /// A date from milliseconds since 1970.
    func timestamp(_ value: JSONValue) throws(WSValueProblem) -> Date {
        switch value {
        case .integer(let ms):
            return Date(timeIntervalSince1970: Double(ms) / 1000)
        case .double(let ms) where ms.isFinite:
            return Date(timeIntervalSince1970: ms / 1000)
        default:
            throw .expected("milliseconds since 1970 as a number", found: value)
        }
    }

    /// A reference dictionary `{recordName, zoneID?, action?}` as a reference; without `zoneID`
    /// it points into `zone`, without `action` the action is NONE (a record's `parent`, a
    /// REFERENCE field, and later query filters use it).
    package func reference(_ value: JSONValue, zone: CKRecordZone.ID) throws(WSValueProblem) -> CKRecord.Reference {
        guard case .object(let members) = value else {
            throw .expected("a reference {recordName, zoneID?, action}", found: value)
        }
        guard case .string(let recordName)? = members["recordName"] else {
            throw WSValueProblem("a reference needs recordName, a string")
        }
        var target = zone
        if let zoneValue = members["zoneID"], zoneValue != .null {
            target = try referenceZone(zoneValue)
        }
        return CKRecord.Reference(
            recordID: CKRecord.ID(recordName: recordName, zoneID: target), action: try action(members["action"]))
    }

    private func referenceZone(_ value: JSONValue) throws(WSValueProblem) -> CKRecordZone.ID {
        guard case .string(let zoneName)? = value["zoneName"] else {
            throw WSValueProblem("a reference's zoneID needs zoneName, a string")
        }
        var owner: String?
        switch value["ownerRecordName"] {
        case nil, .null?: owner = nil
        case .string(let name)?: owner = name
        case let other?: throw .expected("zoneID.ownerRecordName as a string", found: other)
        }
        return zoneID(from: WSZoneID(zoneName: zoneName, ownerRecordName: owner))
    }

    private func action(_ value: JSONValue?) throws(WSValueProblem) -> CKRecord.ReferenceAction {
        switch value {
        case nil, .null?, .string("NONE")?: return .none
        case .string("DELETE_SELF")?: return .deleteSelf
        case .string("VALIDATE")?:
            throw WSValueProblem("the reference action VALIDATE is not supported (use NONE or DELETE_SELF)")
        case .string(let other)?:
            throw WSValueProblem("unknown reference action '\(other)' (use NONE or DELETE_SELF)")
        case let other?:
            throw .expected("the reference action as a string", found: other)
        }
    }

    /// A location: `latitude` and `longitude` required; `altitude` (0), `horizontalAccuracy`
    /// (0), `verticalAccuracy`, `speed`, `course` (-1: invalid) and `timestamp` (ms since
    /// 1970; now) optional, with `CLLocation(latitude:longitude:)`'s defaults.
    package func location(_ value: JSONValue) throws(WSValueProblem) -> CLLocation {
        guard case .object(let members) = value else {
            throw .expected("a location {latitude, longitude, …}", found: value)
        }
        func number(_ key: String, _ fallback: Double?) throws(WSValueProblem) -> Double {
            guard let member = members[key], member != .null else {
                guard let fallback else { throw WSValueProblem("a location needs \(key), a number") }
                return fallback
            }
            do throws(WSValueProblem) {
                return try double(member)
            } catch {
                throw WSValueProblem("\(key): \(error.message)")
            }
        }
        let timestamp: Date
        if let ms = members["timestamp"], ms != .null {
            timestamp = try self.timestamp(ms)
        } else {
            timestamp = Date()
        }
        return CLLocation(
            coordinate: CLLocationCoordinate2D(
                latitude: try number("latitude", nil), longitude: try number("longitude", nil)),
            altitude: try number("altitude", 0), horizontalAccuracy: try number("horizontalAccuracy", 0),
            verticalAccuracy: try number("verticalAccuracy", -1), course: try number("course", -1),
            speed: try number("speed", -1), timestamp: timestamp)
    }
}
