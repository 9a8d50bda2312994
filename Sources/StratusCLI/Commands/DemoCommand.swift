import ArgumentParser
import Foundation
import Stratus

/// `stratus demo`: Stratus working, in one command, on the configured backend (SQLite in
/// `./.stratus/` when nothing is configured). The code is plain CloudKit.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Create a zone, save, query and sync records: Stratus in one command.",
        discussion: """
            Prints the stratus command equivalent to each step. Run it twice: the second run's change \
            fetch starts from the token the first run saved, so it sees only the new records.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await Session.with(options) { session in
            let database = session.database
            Output.line(
                "Stratus on \(session.target) — container \(session.settings.containerIdentifier), \(options.database.rawValue) database"
            )

            // 1. A custom zone.
            let zoneID = CKRecordZone.ID(zoneName: "Demo")
            step("stratus zones create Demo")
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            Output.line("created zone Demo")

            // 2. Three records, with names unique to this run.
            let run = UUID().uuidString.prefix(8).lowercased()
            var records: [CKRecord] = []
            for n in 1...3 {
                let record = CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(run)-\(n)", zoneID: zoneID))
                record["title"] = "Note \(n)"
                record["priority"] = n
                record["tags"] = n == 3 ? ["demo", "urgent"] : ["demo"]
                records.append(record)
            }
            step(
                "stratus records create --zone Demo --type Note --name note-\(run)-1 'title=Note 1' priority:int=1 tags:string-list=demo   # and 2, 3"
            )
            let saved = try await database.modifyRecords(saving: records, deleting: [])
            for record in records {
                let result = try saved.saveResults[record.recordID]?.get()
                Output.line("saved \(record.recordID.recordName) (change tag \(result?.recordChangeTag ?? "?"))")
            }

            // 3. A sorted query.
            step("stratus query --zone Demo --type Note --predicate 'priority >= 2' --sort priority:desc --limit 4")
            let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "priority >= %d", 2))
            query.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: false)]
            let page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 4)
            for (_, result) in page.matchResults {
                let record = try result.get()
                Output.line(
                    "matched \(record.recordID.recordName): \(record["title"] as? String ?? "?"), priority \(record["priority"] as? Int ?? 0)"
                )
            }

            // 4. Incremental sync from the token the previous run saved.
            let tokenFile = URL(fileURLWithPath: session.settings.dataDirectory).appendingPathComponent("demo.token")
            let token = (try? String(contentsOf: tokenFile, encoding: .utf8)).flatMap { try? TokenText.decode($0) }
            step("stratus changes zone --zone Demo" + (token == nil ? "" : " --token $(cat \(tokenFile.path))"))
            var changeToken = token
            var changed = 0
            while true {
                let batch = try await database.recordZoneChanges(inZoneWith: zoneID, since: changeToken)
                changed += batch.modificationResultsByID.count
                changeToken = batch.changeToken
                if !batch.moreComing { break }
            }
            if let changeToken {
                try FileManager.default.createDirectory(
                    at: tokenFile.deletingLastPathComponent(), withIntermediateDirectories: true)
                try TokenText.encode(changeToken).write(to: tokenFile, atomically: true, encoding: .utf8)
            }
            Output.line(
                "\(changed) record\(changed == 1 ? "" : "s") changed since \(token == nil ? "the beginning" : "the last run"); token saved in \(tokenFile.path)"
            )
        }
    }

    private func step(_ command: String) {
        Output.line("")
        Output.line("$ " + command)
    }
}
