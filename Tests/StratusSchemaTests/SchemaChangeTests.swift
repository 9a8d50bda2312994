import StratusSchema
import Testing

@Suite("CloudKit Schema Language: the production rule, additive changes only")
struct SchemaChangeTests {
    static let production = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Note (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                title STRING QUERYABLE SEARCHABLE,
                count NUMBER,
                score NUMBER PREFERRED AS INT64,
                tags LIST<STRING> QUERYABLE,
                GRANT READ TO "_world",
                GRANT WRITE TO Editor
            );
            RECORD TYPE Folder ( name STRING );
        """

    static func changes(to text: String) throws -> [SchemaChange] {
        CloudKitSchema.changes(from: try CloudKitSchema.parse(production), to: try CloudKitSchema.parse(text))
    }

    @Test func theSameSchemaHasNoChanges() throws {
        #expect(try Self.changes(to: Self.production).isEmpty)
        let reordered = """
            DEFINE SCHEMA
                RECORD TYPE Folder ( name STRING );
                RECORD TYPE Note (
                    GRANT WRITE TO Editor, tags LIST<STRING> QUERYABLE, score NUMBER PREFERRED AS INT64,
                    count NUMBER, title STRING SEARCHABLE QUERYABLE, GRANT READ TO "_world",
                    "___createTime" TIMESTAMP SORTABLE QUERYABLE
                );
                CREATE ROLE Editor;
            """
        #expect(try Self.changes(to: reordered).isEmpty)
    }

    @Test func additiveChangesAreAllowed() throws {
        let changes = try Self.changes(
            to: """
                DEFINE SCHEMA
                    CREATE ROLE Editor;
                    CREATE ROLE Reviewer;
                    RECORD TYPE Note (
                        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                        "___recordID" REFERENCE QUERYABLE,
                        title STRING QUERYABLE SORTABLE SEARCHABLE,
                        body STRING,
                        count NUMBER PREFERRED AS DOUBLE,
                        score NUMBER PREFERRED AS INT64,
                        tags LIST<STRING> QUERYABLE,
                        GRANT READ TO "_world",
                        GRANT WRITE TO Editor
                    );
                    RECORD TYPE Folder ( name STRING );
                    RECORD TYPE Tag ( label STRING );
                """)
        #expect(
            changes.map(\.message) == [
                "role 'Reviewer' is created",
                "field 'Note.___recordID' becomes QUERYABLE",
                "field 'Note.body' is added as STRING",
                "field 'Note.count' NUMBER is preferred as DOUBLE",
                "field 'Note.title' becomes SORTABLE",
                "record type 'Tag' is added",
            ])
        #expect(
            changes.map(\.kind) == [
                .roleAdded, .indexAdded, .fieldAdded, .numberPreferred, .indexAdded, .recordTypeAdded,
            ])
        #expect(changes.allSatisfy { $0.isAllowedInProduction })
        #expect(changes[2].recordType == "Note" && changes[2].field == "body")
    }

    @Test func removalsAndTypeChangesAreRefused() throws {
        let production = try CloudKitSchema.parse(Self.production)
        let next = try CloudKitSchema.parse(
            """
            DEFINE SCHEMA
                CREATE ROLE Editor;
                RECORD TYPE Note (
                    "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                    title ENCRYPTED STRING,
                    count NUMBER,
                    score NUMBER PREFERRED AS DOUBLE,
                    tags LIST<INT64> QUERYABLE,
                    GRANT READ TO "_world",
                    GRANT WRITE TO Editor
                );
            """)
        let violations = CloudKitSchema.productionViolations(from: production, to: next)
        #expect(
            violations.map(\.message) == [
                "record type 'Folder' is removed, with its records' data",
                "field 'Note.score' changes type from NUMBER PREFERRED AS INT64 to NUMBER PREFERRED AS DOUBLE",
                "field 'Note.tags' changes type from LIST<STRING> to LIST<INT64>",
                "field 'Note.title' changes type from STRING to ENCRYPTED STRING",
            ])
        #expect(
            violations.map(\.kind) == [.recordTypeRemoved, .fieldTypeChanged, .fieldTypeChanged, .fieldTypeChanged])
        #expect(violations[0].recordType == "Folder" && violations[0].field == nil)
        #expect(violations[3].recordType == "Note" && violations[3].field == "title")
        // The index removals that come with the type change are allowed.
        let allowed = CloudKitSchema.changes(from: production, to: next).filter(\.isAllowedInProduction)
        #expect(
            allowed.map(\.message) == [
                "field 'Note.title' is no longer QUERYABLE: queries that need it fail",
                "field 'Note.title' is no longer SEARCHABLE: queries that need it fail",
            ])
    }

    @Test func aRemovedFieldIsRefusedAndNamesTheField() throws {
        let violations = try Self.changes(
            to: """
                DEFINE SCHEMA
                    CREATE ROLE Editor;
                    RECORD TYPE Note (
                        "___createTime" TIMESTAMP QUERYABLE SORTABLE, title STRING QUERYABLE SEARCHABLE,
                        score NUMBER PREFERRED AS INT64, tags LIST<STRING> QUERYABLE,
                        GRANT READ TO "_world", GRANT WRITE TO Editor
                    );
                    RECORD TYPE Folder ( );
                """
        ).filter { !$0.isAllowedInProduction }
        #expect(
            violations == [
                SchemaChange(
                    kind: .fieldRemoved, recordType: "Folder", field: "name",
                    message: "field 'Folder.name' (STRING) is removed, with its data"),
                SchemaChange(
                    kind: .fieldRemoved, recordType: "Note", field: "count",
                    message: "field 'Note.count' (NUMBER) is removed, with its data"),
            ])
        #expect(violations[0].description == "field 'Folder.name' (STRING) is removed, with its data")
    }

    /// A system field always exists: leaving it out drops its indexes (allowed), and never
    /// removes the field.
    @Test func leavingOutASystemFieldDropsOnlyItsIndexes() throws {
        let changes = try Self.changes(
            to: """
                DEFINE SCHEMA
                    CREATE ROLE Editor;
                    RECORD TYPE Note (
                        title STRING QUERYABLE SEARCHABLE, count NUMBER, score NUMBER PREFERRED AS INT64,
                        tags LIST<STRING> QUERYABLE, GRANT READ TO "_world", GRANT WRITE TO Editor
                    );
                    RECORD TYPE Folder ( name STRING );
                """)
        #expect(
            changes.map(\.message) == [
                "field 'Note.___createTime' is no longer QUERYABLE: queries that need it fail",
                "field 'Note.___createTime' is no longer SORTABLE: queries that need it fail",
            ])
        #expect(changes.allSatisfy { $0.kind == .indexRemoved && $0.isAllowedInProduction })
    }

    @Test func permissionChangesAndRemovedRolesAreAllowed() throws {
        let changes = try Self.changes(
            to: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        "___createTime" TIMESTAMP QUERYABLE SORTABLE, title STRING QUERYABLE SEARCHABLE,
                        count NUMBER, score NUMBER PREFERRED AS INT64, tags LIST<STRING> QUERYABLE,
                        GRANT READ, CREATE TO "_world"
                    );
                    RECORD TYPE Folder ( name STRING );
                """)
        #expect(
            changes.map(\.message) == [
                "role 'Editor' is no longer created",
                "record type 'Note' grants nothing to role 'Editor' instead of WRITE",
                "record type 'Note' grants READ, CREATE to role '_world' instead of READ",
            ])
        #expect(changes.map(\.kind) == [.roleRemoved, .grantsChanged, .grantsChanged])
        #expect(changes.allSatisfy { $0.isAllowedInProduction })
    }

    @Test func numberPreferenceIsSetOnceAndNeverRemoved() throws {
        func change(_ old: SchemaFieldType, _ new: SchemaFieldType) -> [SchemaChange.Kind] {
            let before = CloudKitSchema(recordTypes: [
                SchemaRecordType(name: "T", fields: [SchemaField(name: "n", type: old)])
            ])
            let after = CloudKitSchema(recordTypes: [
                SchemaRecordType(name: "T", fields: [SchemaField(name: "n", type: new)])
            ])
            return CloudKitSchema.changes(from: before, to: after).map(\.kind)
        }
        #expect(change(.number(preferredAs: nil), .number(preferredAs: .int64)) == [.numberPreferred])
        #expect(change(.list(.number(preferredAs: nil)), .list(.number(preferredAs: .double))) == [.numberPreferred])
        #expect(change(.number(preferredAs: .int64), .number(preferredAs: nil)) == [.fieldTypeChanged])
        #expect(change(.number(preferredAs: .int64), .int64) == [.fieldTypeChanged])
        #expect(change(.number(preferredAs: nil), .double) == [.fieldTypeChanged])
        #expect(change(.string, .list(.string)) == [.fieldTypeChanged])
    }

    @Test func onlyTheRemovalsAndTypeChangesAreRefused() {
        let refused: Set<SchemaChange.Kind> = [.recordTypeRemoved, .fieldRemoved, .fieldTypeChanged]
        let all: [SchemaChange.Kind] = [
            .recordTypeAdded, .recordTypeRemoved, .fieldAdded, .fieldRemoved, .fieldTypeChanged, .numberPreferred,
            .indexAdded, .indexRemoved, .roleAdded, .roleRemoved, .grantsChanged,
        ]
        for kind in all {
            #expect(SchemaChange(kind: kind, message: "").isAllowedInProduction == !refused.contains(kind))
        }
    }
}
