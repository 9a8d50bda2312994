// The quick start: CloudKit code on the embedded SQLite default.
//
//     swift run stratus-quickstart [path/to/store.sqlite]
//
// Creates a zone, saves records, queries them and fetches the zone's changes with a change
// token, through the same operations an app written for Apple's CloudKit uses.
import Foundation
import Stratus
import StratusSQLite

let path = CommandLine.arguments.dropFirst().first ?? ".stratus/quickstart.sqlite"
try FileManager.default.createDirectory(
    at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)

// The one line a port changes: the container set-up.
let container = CKContainer(
    identifier: "iCloud.com.example.quickstart",
    backend: try SQLiteBackend(configuration: .init(location: .file(path: path))))
let database = container.privateCloudDatabase

func run(_ operation: CKDatabaseOperation) {
    let done = DispatchSemaphore(value: 0)
    operation.completionBlock = { done.signal() }
    database.add(operation)
    done.wait()
}

// 1. A custom zone.
let zoneID = CKRecordZone.ID(zoneName: "Notes")
let makeZone = CKModifyRecordZonesOperation(
    recordZonesToSave: [CKRecordZone(zoneID: zoneID)], recordZoneIDsToDelete: nil)
makeZone.perRecordZoneSaveBlock = { id, result in
    if case .failure(let error) = result { print("zone \(id.zoneName): \(error)") }
}
run(makeZone)
print("zone '\(zoneID.zoneName)' ready in \(path)")

// 2. Save records.
let stamp = UUID().uuidString.prefix(8).lowercased()
let records = (1...3).map { n -> CKRecord in
    let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(stamp)-\(n)", zoneID: zoneID))
    record["title"] = "Note \(n)"
    record["priority"] = n
    return record
}
let save = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
save.perRecordSaveBlock = { id, result in
    switch result {
    case .success(let record): print("saved \(id.recordName) (tag \(record.recordChangeTag ?? "?"))")
    case .failure(let error): print("failed \(id.recordName): \(error)")
    }
}
run(save)

// 3. Query.
let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "priority >= %d", 2))
query.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: false)]
let queryOperation = CKQueryOperation(query: query)
queryOperation.zoneID = zoneID
queryOperation.recordMatchedBlock = { _, result in
    if let record = try? result.get() {
        print("matched \(record["title"] as? String ?? "?") priority \(record["priority"] as? Int ?? 0)")
    }
}
run(queryOperation)

// 4. Fetch the zone's changes, then again from the token.
let tokenFile = URL(fileURLWithPath: path + ".token")
var token: CKServerChangeToken?
if let data = try? Data(contentsOf: tokenFile) {
    token = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: data)
}
let changes = CKFetchRecordZoneChangesOperation(
    recordZoneIDs: [zoneID],
    configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: token)])
let counter = NSLock()
nonisolated(unsafe) var changed = 0
changes.recordWasChangedBlock = { _, _ in counter.withLock { changed += 1 } }
changes.recordZoneFetchResultBlock = { _, result in
    if case .success(let value) = result,
        let data = try? NSKeyedArchiver.archivedData(
            withRootObject: value.serverChangeToken, requiringSecureCoding: true)
    {
        try? data.write(to: tokenFile)
    }
}
run(changes)
print(
    "\(changed) record(s) changed since the \(token == nil ? "beginning" : "last run"); token saved to \(tokenFile.path)"
)
