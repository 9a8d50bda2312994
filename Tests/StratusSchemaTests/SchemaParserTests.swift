import StratusSchema
import Testing

@Suite("CloudKit Schema Language: parsing")
struct SchemaParserTests {
    /// The example schema of Apple's "Integrating a Text-Based Schema into Your Workflow".
    static let appleExample = """
        DEFINE SCHEMA
            CREATE ROLE DeptManager;

            RECORD TYPE Department (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                name STRING,
                address STRING,
                phone LIST<STRING>,
                employees LIST<REFERENCE>,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world",
                GRANT WRITE, CREATE, READ TO DeptManager
            );

            RECORD TYPE Employee (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                name STRING,
                address STRING,
                hiredate TIMESTAMP,
                salary INT64,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """

    @Test func applesExample() throws {
        let schema = try CloudKitSchema.parse(Self.appleExample)
        #expect(schema.roles == ["DeptManager"])
        #expect(schema.recordTypes.keys.sorted() == ["Department", "Employee"])
        let department = try #require(schema[recordType: "Department"])
        #expect(
            department[field: "___createTime"]
                == SchemaField(name: "___createTime", type: .timestamp, indexes: [.queryable, .sortable]))
        #expect(department[field: "___recordID"]?.indexes == [.queryable])
        #expect(department[field: "phone"] == SchemaField(name: "phone", type: .list(.string)))
        #expect(department[field: "employees"]?.type == .list(.reference))
        #expect(department.fields.count == 6)
        #expect(
            department.grants == [
                "_creator": [.write], "_icloud": [.create], "_world": [.read], "DeptManager": [.read, .create, .write],
            ])
        let employee = try #require(schema[recordType: "Employee"])
        #expect(employee[field: "salary"]?.type == .int64)
        #expect(employee[field: "hiredate"]?.type == .timestamp)
        #expect(employee.grants == SchemaRecordType.publicDatabaseGrants)
        #expect(schema.problems.isEmpty)
    }

    @Test func everyFieldType() throws {
        let schema = try CloudKitSchema.parse(
            """
            DEFINE SCHEMA
                RECORD TYPE Everything (
                    a ASSET, b BYTES, c DOUBLE, d INT64, e LOCATION, f REFERENCE, g STRING, h TIMESTAMP,
                    i NUMBER, j NUMBER PREFERRED AS INT64, k NUMBER PREFERRED AS DOUBLE,
                    l ENCRYPTED BYTES, m ENCRYPTED STRING, n ENCRYPTED DOUBLE, o ENCRYPTED INT64,
                    p ENCRYPTED LOCATION, q ENCRYPTED TIMESTAMP,
                    r LIST<ASSET>, s LIST<NUMBER PREFERRED AS INT64>, t LIST<ENCRYPTED STRING>, u LIST < TIMESTAMP >
                );
            """)
        let fields = try #require(schema[recordType: "Everything"]).fields.mapValues(\.type)
        let expected: [String: SchemaFieldType] = [
            "a": .asset, "b": .bytes, "c": .double, "d": .int64, "e": .location, "f": .reference, "g": .string,
            "h": .timestamp, "i": .number(preferredAs: nil), "j": .number(preferredAs: .int64),
            "k": .number(preferredAs: .double), "l": .encrypted(.bytes), "m": .encrypted(.string),
            "n": .encrypted(.double), "o": .encrypted(.int64), "p": .encrypted(.location), "q": .encrypted(.timestamp),
            "r": .list(.asset), "s": .list(.number(preferredAs: .int64)), "t": .list(.encrypted(.string)),
            "u": .list(.timestamp),
        ]
        #expect(fields == expected)
    }

    @Test func commentsInEveryForm() throws {
        let schema = try CloudKitSchema.parse(
            """
            // A single-line comment
            -- another single-line comment
            DEFINE /* inline */ SCHEMA
            /*
               A multi-line comment: RECORD TYPE Hidden ( x STRING );
            */
                RECORD TYPE Note ( -- the notes
                    title STRING QUERYABLE, // searchable later
                    body STRING /* not indexed */
                );
            """)
        #expect(schema.recordTypes.keys.sorted() == ["Note"])
        #expect(schema[recordType: "Note"]?.fields.count == 2)
    }

    @Test func keywordsAreCaseInsensitiveAndNamesAreNot() throws {
        let schema = try CloudKitSchema.parse(
            """
            define schema
                create role Editor;
                record type note ( Title string queryable Sortable, title list<int64>, grant read, write to Editor );
            """)
        let note = try #require(schema[recordType: "note"])
        #expect(note[field: "Title"] == SchemaField(name: "Title", type: .string, indexes: [.queryable, .sortable]))
        #expect(note[field: "title"]?.type == .list(.int64))
        #expect(note.grants == ["Editor": [.read, .write]])
    }

    @Test func quotedNamesMayBeReservedWordsOrTypeNames() throws {
        let schema = try CloudKitSchema.parse(
            """
            DEFINE SCHEMA
                RECORD TYPE "grant" ( "queryable" STRING QUERYABLE, string STRING, list INT64, "type" BYTES );
                RECORD TYPE Users ( "___recordID" REFERENCE QUERYABLE SORTABLE );
            """)
        #expect(schema[recordType: "grant"]?.fields.keys.sorted() == ["list", "queryable", "string", "type"])
        #expect(schema[recordType: "Users"]?[field: "___recordID"]?.indexes == [.queryable, .sortable])
    }

    @Test func emptySchemasAndEmptyTypes() throws {
        #expect(try CloudKitSchema.parse("DEFINE SCHEMA") == CloudKitSchema())
        #expect(try CloudKitSchema.parse("DEFINE SCHEMA\n\n") == CloudKitSchema())
        let schema = try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Empty ( );")
        #expect(schema == CloudKitSchema(recordTypes: [SchemaRecordType(name: "Empty")]))
    }

    @Test func grantsToOneRoleAreMerged() throws {
        let schema = try CloudKitSchema.parse(
            """
            DEFINE SCHEMA RECORD TYPE T ( GRANT READ TO "_icloud", GRANT CREATE, WRITE TO "_icloud", GRANT READ TO "_icloud" );
            """)
        #expect(schema[recordType: "T"]?.grants == ["_icloud": [.read, .create, .write]])
    }

    @Test func aRoleMayBeCreatedAfterItsFirstGrant() throws {
        let schema = try CloudKitSchema.parse(
            "DEFINE SCHEMA RECORD TYPE T ( GRANT READ TO Reviewer ); CREATE ROLE Reviewer;")
        #expect(schema.roles == ["Reviewer"])
    }

    /// The shape `cktool export-schema` writes in public code: every system field, aligned
    /// columns, and the three public-database grants.
    @Test func exportedShape() throws {
        let schema = try CloudKitSchema.parse(
            """
            DEFINE SCHEMA

                RECORD TYPE UserProfile (
                    "___createTime"        TIMESTAMP,
                    "___createdBy"         REFERENCE,
                    "___etag"              STRING,
                    "___modTime"           TIMESTAMP,
                    "___modifiedBy"        REFERENCE,
                    "___recordID"          REFERENCE,
                    phone_hash             STRING QUERYABLE SEARCHABLE SORTABLE,
                    streak                 INT64,
                    GRANT WRITE TO "_creator",
                    GRANT READ, CREATE, WRITE TO "_icloud",
                    GRANT READ TO "_world"
                );
            """)
        let profile = try #require(schema[recordType: "UserProfile"])
        #expect(profile.fields.count == 8)
        #expect(profile[field: "phone_hash"]?.indexes == [.queryable, .sortable, .searchable])
        #expect(profile.grants["_icloud"] == [.read, .create, .write])
    }

    @Test func windowsLineEndingsCountAsOneLine() throws {
        let text = "DEFINE SCHEMA\r\n  RECORD TYPE T (\r\n    x BLOB\r\n  );\r\n"
        #expect(throws: SchemaErrors([SchemaError(line: 3, column: 7, message: Self.expectedType("'BLOB'"))])) {
            try CloudKitSchema.parse(text)
        }
    }

    static func expectedType(_ found: String) -> String {
        "expected a field type (ASSET, BYTES, DOUBLE, ENCRYPTED …, INT64, LIST<…>, LOCATION, NUMBER, REFERENCE, "
            + "STRING or TIMESTAMP), found \(found)"
    }
}
