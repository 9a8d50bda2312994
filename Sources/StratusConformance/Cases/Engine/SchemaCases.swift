import Foundation
import Stratus
import StratusSchema

/// CloudKit's schema per container and environment (decision 0020): development grows it as
/// records are saved; production refuses what it does not declare, and queries on fields
/// without the index they need.
enum SchemaCases {
    static var all: [ConformanceCase] {
        [
            developmentAddsTypesAndFieldsJustInTime, productionRefusesWhatTheSchemaLacks,
            productionQueriesNeedDeclaredIndexes, productionIndexesAnswerLikeTheScan,
            importedIndexesAreBuiltForExistingRecords,
        ]
    }

    /// The production schema the cases import.
    static let productionSchema = """
        DEFINE SCHEMA
            RECORD TYPE Item (
                "___recordID" REFERENCE QUERYABLE,
                "___createTime" TIMESTAMP SORTABLE,
                title STRING QUERYABLE SEARCHABLE,
                k INT64 QUERYABLE SORTABLE,
                note STRING,
                tags LIST<STRING> QUERYABLE,
                owner REFERENCE QUERYABLE
            );
        """

    /// Whether `result` failed with `invalidArguments` whose message contains every part.
    static func expectInvalid(
        _ error: (any Error)?, mentioning parts: [String], _ what: String, in context: ConformanceContext
    ) throws {
        try context.expectEqual(ckCode(error), .invalidArguments, "\(what): code (\(Reads.describe(error)))")
        let message = (error as? CKError)?.localizedDescription ?? ""
        for part in parts {
            try context.expect(message.contains(part), "\(what): the message names \(part)", actual: message)
        }
    }

    /// The error of the one save of `record` (non-atomic, default zone).
    static func saveError(_ database: CKDatabase, _ record: CKRecord) -> (any Error)? {
        let result = Ops.modify(database, save: [record], atomic: false)
        switch result.saved[record.recordID] {
        case .failure(let error): return error
        case .success: return nil
        case nil: return result.error ?? CKError(.internalError)
        }
    }

    static let developmentAddsTypesAndFieldsJustInTime = ConformanceCase(
        "schema.developmentAddsTypesAndFieldsJustInTime",
        "In development a save adds its record type and fields to the environment's schema with the indexes CloudKit's development environment gives them; a field keeps its type across the environment's databases; production's data and schema are apart."
    ) { context in
        let db = try context.container(environment: .development).privateCloudDatabase
        context.step("save a Note with a string, a number, a date, a list and bytes")
        let note = makeRecord(
            "n1", type: "Note", zone: .default,
            [
                "title": "Hi", "rating": 2.5, "when": Date(timeIntervalSince1970: 0), "tags": ["a", "b"],
                "blob": Data([1]),
            ])
        _ = try Ops.saveAll(db, [note], in: context)
        let expected = SchemaRecordType(
            name: "Note",
            fields: [
                .justInTime(name: "title", type: .string), .justInTime(name: "rating", type: .number(preferredAs: nil)),
                .justInTime(name: "when", type: .timestamp), .justInTime(name: "tags", type: .list(.string)),
                .justInTime(name: "blob", type: .bytes),
            ])
        try context.expectEqual(
            try context.environmentSchema(environment: .development)[recordType: "Note"], expected,
            "the development schema's Note")
        try context.expectEqual(
            try context.environmentSchema(environment: .production).recordTypes.count, 0,
            "record types in production's schema")
        context.step("a record in another zone of the database gives rating a string")
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        try expectInvalid(
            saveError(db, makeRecord("n2", type: "Note", zone: zone, ["rating": "high"])),
            mentioning: ["rating"], "a string in a number field", in: context)
        context.step("a production container of the same identifier sees none of development's records")
        let production = try context.container(environment: .production).privateCloudDatabase
        let fetched = Reads.fetch(production, [note.recordID]).results[note.recordID]
        var fetchError: (any Error)?
        if case .failure(let error)? = fetched { fetchError = error }
        try context.expectEqual(
            ckCode(fetchError), .unknownItem, "fetching development's record in production (\(Reads.describe(fetched)))"
        )
    }

    static let productionRefusesWhatTheSchemaLacks = ConformanceCase(
        "schema.productionRefusesWhatTheSchemaLacks",
        "In production a save of a record type or field the schema lacks, or of a value of the wrong type, fails with invalidArguments naming the type and field; what the schema declares saves."
    ) { context in
        context.step("import the production schema")
        try context.importSchema(productionSchema, environment: .production)
        let db = try context.container(environment: .production).privateCloudDatabase
        context.step("save an Item the schema declares")
        _ = try Ops.saveAll(
            db, [makeRecord("i1", zone: .default, ["title": "one", "k": 1, "tags": ["x"]])], in: context)
        context.step("save a type the schema does not have")
        try expectInvalid(
            saveError(db, makeRecord("o1", type: "Other", zone: .default, ["title": "x"])),
            mentioning: ["Cannot create new type Other in production schema"], "an unknown type", in: context)
        context.step("save an Item with a field the schema does not have")
        try expectInvalid(
            saveError(db, makeRecord("i2", zone: .default, ["title": "two", "colour": "red"])),
            mentioning: ["Cannot create or modify field 'colour' in record 'Item' in production schema"],
            "an unknown field", in: context)
        context.step("save an Item whose k is a string")
        try expectInvalid(
            saveError(db, makeRecord("i3", zone: .default, ["k": "seven"])),
            mentioning: ["'k'", "'Item'", "INT64"], "a string in an INT64 field", in: context)
        context.step("the public database shares the schema")
        try expectInvalid(
            saveError(
                try context.container(environment: .production).publicCloudDatabase,
                makeRecord("o2", type: "Other", zone: .default)),
            mentioning: ["Other"], "an unknown type in the public database", in: context)
        context.step("development still adds the type just in time")
        _ = try Ops.saveAll(
            try context.container(environment: .development).privateCloudDatabase,
            [makeRecord("o3", type: "Other", zone: .default, ["title": "x"])], in: context)
    }

    static let productionQueriesNeedDeclaredIndexes = ConformanceCase(
        "schema.productionQueriesNeedDeclaredIndexes",
        "In production a filter on a field that is not QUERYABLE fails with \"Field 'x' is not marked queryable\", a sort on one that is not SORTABLE with \"... sortable\"; a declared type without records answers an empty page."
    ) { context in
        try context.importSchema(productionSchema, environment: .production)
        let db = try context.container(environment: .production).privateCloudDatabase
        context.step("query the declared type before any record exists")
        let empty = Ops.query(db, CKQuery(recordType: "Item", predicate: NSPredicate(format: "k == 1")))
        try context.expect(
            empty.error == nil && empty.records.isEmpty, "an empty page", actual: Reads.describe(empty.error))
        _ = try Ops.saveAll(
            db, (0..<5).map { makeRecord("i\($0)", zone: .default, ["title": "t\($0)", "k": $0, "note": "n"]) },
            in: context)
        for (format, sort, failure) in [
            ("note == 'n'", nil, "Field 'note' is not marked queryable"),
            ("k == 1", "title", "Field 'title' is not marked sortable"),
            ("TRUEPREDICATE", "modificationDate", "Field '___modTime' is not marked sortable"),
            ("modificationDate > %@", nil, "Field '___modTime' is not marked queryable"),
        ] as [(String, String?, String)] {
            context.step("\(format) sorted by \(sort ?? "nothing") fails")
            let query = CKQuery(
                recordType: "Item", predicate: NSPredicate(format: format, argumentArray: [Date.distantPast]))
            if let sort { query.sortDescriptors = [NSSortDescriptor(key: sort, ascending: true)] }
            try expectInvalid(Ops.query(db, query).error, mentioning: [failure], format, in: context)
        }
        for (format, sort, count) in [
            ("k == 1", nil, 1), ("k >= 2", "k", 3), ("title == 't3'", nil, 1), ("creationDate > %@", "creationDate", 5),
            ("recordName == 'i4'", nil, 1),
        ] as [(String, String?, Int)] {
            context.step("\(format) sorted by \(sort ?? "nothing") answers")
            let query = CKQuery(
                recordType: "Item", predicate: NSPredicate(format: format, argumentArray: [Date.distantPast]))
            if let sort { query.sortDescriptors = [NSSortDescriptor(key: sort, ascending: true)] }
            let page = Ops.query(db, query)
            try context.expect(page.error == nil, "\(format) answers", actual: Reads.describe(page.error))
            try context.expectEqual(page.records.count, count, "matches of \(format)")
        }
    }

    static let productionIndexesAnswerLikeTheScan = ConformanceCase(
        "schema.productionIndexesAnswerLikeTheScan",
        "Production maintains the indexes its schema declares from the first save; queries on them return what development's scans return for the same records, across pages."
    ) { context in
        try context.importSchema(productionSchema, environment: .production)
        let production = try context.container(environment: .production).privateCloudDatabase
        let development = try context.container(environment: .development).privateCloudDatabase
        let records = {
            (0..<40).map { i in
                makeRecord(
                    "i\(i)", zone: .default,
                    [
                        "title": ["alpha", "Beta", "gamma"][i % 3], "k": i % 7,
                        "tags": [["red"], ["blue", "red"], []][i % 3],
                    ])
            }
        }
        context.step("save 40 Items in each environment")
        _ = try Ops.saveAll(production, records(), in: context)
        _ = try Ops.saveAll(development, records(), in: context)
        for format in [
            "k == 3", "k >= 5", "title == 'BETA'", "tags CONTAINS 'red'", "k IN {1, 2}", "self CONTAINS 'beta'",
        ] {
            context.step(format)
            let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: format))
            let answered = try Reads.allPages(production, query, limit: 6, in: context).flatMap { $0 }
            let scanned = try Reads.allPages(development, query, limit: 6, in: context).flatMap { $0 }
            try context.expectEqual(
                Reads.names(answered), Reads.names(scanned), "production's matches of \(format) are development's")
        }
    }

    static let importedIndexesAreBuiltForExistingRecords = ConformanceCase(
        "schema.importedIndexesAreBuiltForExistingRecords",
        "An index added to a production schema that already has records is built for them, in batches; queries on the field answer the same before, during and after the build."
    ) { context in
        let unindexed = """
            DEFINE SCHEMA
                RECORD TYPE Item (k INT64, title STRING);
            """
        try context.importSchema(unindexed, environment: .production)
        let db = try context.container(environment: .production).privateCloudDatabase
        context.step("save 600 Items in production, without any index on k")
        let records = (0..<600).map { makeRecord("i\($0)", zone: .default, ["k": $0 % 9, "title": "t\($0 % 4)"]) }
        for start in stride(from: 0, to: records.count, by: 200) {
            _ = try Ops.saveAll(db, Array(records[start..<start + 200]), in: context)
        }
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: "k == 3"))
        try expectInvalid(
            Ops.query(db, query).error, mentioning: ["Field 'k' is not marked queryable"], "k == 3", in: context)
        context.step("add QUERYABLE SORTABLE to k and QUERYABLE SEARCHABLE to title")
        try context.importSchema(
            "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE SORTABLE, title STRING QUERYABLE SEARCHABLE);",
            environment: .production)
        let expected = (0..<600).filter { $0 % 9 == 3 }.map { "i\($0)" }.sorted()
        func check(_ when: String) throws {
            let found = try Reads.allPages(db, query, limit: 25, in: context).flatMap { $0 }
            try context.expectEqual(Reads.names(found), expected, "matches of k == 3 \(when)")
            let sorted = CKQuery(recordType: "Item", predicate: NSPredicate(format: "title == 't1'"))
            sorted.sortDescriptors = [NSSortDescriptor(key: "k", ascending: false)]
            let ks = try Reads.allPages(db, sorted, limit: 40, in: context).flatMap { $0 }.map { $0["k"] as? Int ?? -1 }
            try context.expectEqual(ks.count, 150, "matches of title == 't1' \(when)")
            try context.expectEqual(ks, ks.sorted(by: >), "title == 't1' sorted by k descending \(when)")
            let search = CKQuery(recordType: "Item", predicate: NSPredicate(format: "self CONTAINS 'T2'"))
            let words = try Reads.allPages(db, search, limit: 40, in: context).flatMap { $0 }
            try context.expectEqual(words.count, 150, "matches of self CONTAINS 'T2' \(when)")
        }
        try check("before the build")
        context.step("build the declared indexes, as `stratus schema import` does")
        let built = try context.must("the declared indexes build") {
            try Engine(backend: try context.open()).buildDeclaredIndexes(
                SchemaScope(container: "iCloud.conformance", environment: .production))
        }
        try context.expect(
            built <= 4, "at most k's value index, title's value and match indexes and the token index are built",
            actual: "\(built)")
        try check("after the build")
    }
}
