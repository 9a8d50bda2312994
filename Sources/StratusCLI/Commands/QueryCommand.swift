import ArgumentParser
import Foundation
import Stratus

/// `stratus query --type T [--predicate P] [--sort F[:desc]]… [--limit N]`
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Query records with a predicate and a sort, following cursors.",
        discussion: """
            The predicate is NSPredicate format with CloudKit's subset (see Docs/Queries.md): \
            "priority >= 2", "title BEGINSWITH 'Note'", "tags CONTAINS 'a' AND done == 0". \
            Pages of --page-size records are fetched with CKQueryOperation, each continuing from the \
            previous page's cursor, until --limit records or the last page.
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var zone: ZoneOption

    @Option(name: [.customLong("type"), .customLong("record-type")], help: "The record type.")
    var type: String

    @Option(
        name: [.customLong("predicate"), .customLong("filter")],
        help: ArgumentHelp("The predicate (default: every record).", valueName: "format"))
    var predicate = "TRUEPREDICATE"

    @Option(
        name: [.customLong("sort"), .customLong("sort-by")],
        help: ArgumentHelp("A sort key, field or field:desc (repeatable; first is primary).", valueName: "field"))
    var sort: [String] = []

    @Option(help: "The most records to print (default: all).")
    var limit: Int?

    @Option(name: .customLong("page-size"), help: "Records per page (per cursor).")
    var pageSize = 100

    @Option(
        name: [.customLong("fields"), .customLong("requested-fields")],
        help: ArgumentHelp("Only these fields, comma-separated (default: all).", valueName: "names"))
    var fields: String?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if pageSize < 1 || pageSize > 400 { throw ValidationError("--page-size must be from 1 to 400") }
    }

    func run() async throws {
        let query = CKQuery(recordType: type, predicate: NSPredicate(format: predicate))
        query.sortDescriptors = try sort.map(Self.sortDescriptor)
        let desiredKeys = fields.map { $0.split(separator: ",").map(String.init) }
        try await Session.with(options) { session in
            var records: [CKRecord] = []
            var pages = 0
            var page = try await session.database.records(
                matching: query, inZoneWith: zone.zoneID, desiredKeys: desiredKeys,
                resultsLimit: min(pageSize, limit ?? pageSize))
            while true {
                pages += 1
                for (_, result) in page.matchResults {
                    records.append(try result.get())
                }
                let remaining = limit.map { $0 - records.count } ?? pageSize
                guard let cursor = page.queryCursor, remaining > 0 else { break }
                page = try await session.database.records(
                    continuingMatchFrom: cursor, desiredKeys: desiredKeys, resultsLimit: min(pageSize, remaining))
            }
            if let limit, records.count > limit { records.removeLast(records.count - limit) }
            try printRecords(records, json: options.json)
            if !options.json {
                Output.status(
                    "\(records.count) record\(records.count == 1 ? "" : "s") in \(pages) page\(pages == 1 ? "" : "s")\n"
                )
            }
        }
    }

    /// `field` or `field:desc` / `field:asc` as a sort descriptor.
    static func sortDescriptor(_ text: String) throws -> NSSortDescriptor {
        var key = text
        var ascending = true
        if let colon = text.lastIndex(of: ":") {
            key = String(text[..<colon])
            switch text[text.index(after: colon)...].lowercased() {
            case "asc", "ascending": ascending = true
            case "desc", "descending": ascending = false
            default:
                throw CLIError("--sort '\(text)': write field, field:asc or field:desc", exitCode: CLIError.usage)
            }
        }
        guard !key.isEmpty else { throw CLIError("--sort '\(text)' has no field", exitCode: CLIError.usage) }
        return NSSortDescriptor(key: key, ascending: ascending)
    }
}
