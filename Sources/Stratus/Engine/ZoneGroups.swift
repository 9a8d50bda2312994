/// A request's items grouped by zone, groups in order of first appearance. Each item's zone is
/// compared with the previous item's first — a request's items are usually all in one zone — so
/// most items cost an identity or name comparison instead of hashing a `CKRecordZone.ID`.
struct ZoneGroups {
    /// The zones, in order of first appearance; a group's number is its index here.
    private(set) var zones: [CKRecordZone.ID] = []
    private var numbers: [CKRecordZone.ID: Int] = [:]
    private var last = -1

    /// The group number of `zoneID`, a new group if it is the first item of that zone.
    mutating func group(of zoneID: CKRecordZone.ID) -> Int {
        if last >= 0, zones[last] === zoneID || zones[last] == zoneID { return last }
        if let number = numbers[zoneID] {
            last = number
            return number
        }
        zones.append(zoneID)
        last = zones.count - 1
        numbers[zoneID] = last
        return last
    }
}
