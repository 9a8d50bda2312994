import StratusSchema
import Testing

@Suite("CloudKit Schema Language: every parse error names its line, column and what was expected")
struct SchemaParserErrorTests {
    /// `DEFINE SCHEMA RECORD TYPE T ( <body> );`: the body starts at column 31.
    static func inType(_ body: String) -> String { "DEFINE SCHEMA RECORD TYPE T ( \(body) );" }

    static func errors(_ text: String) -> [SchemaError] {
        do {
            _ = try CloudKitSchema.parse(text)
            return []
        } catch {
            return error.errors
        }
    }

    @Test(
        arguments: [
            ("", 1, 1, "expected DEFINE SCHEMA at the start of the schema, found the end of the text"),
            ("RECORD TYPE T ( );", 1, 1, "expected DEFINE SCHEMA at the start of the schema, found 'RECORD'"),
            ("DEFINE RECORD TYPE T ( );", 1, 8, "expected SCHEMA after DEFINE, found 'RECORD'"),
            (
                "DEFINE SCHEMA\n  DROP TYPE T;", 2, 3,
                "expected CREATE ROLE, RECORD TYPE or the end of the schema, found 'DROP'"
            ),
            (
                "DEFINE SCHEMA RECORD TYPE A ( )\nRECORD TYPE B ( );", 2, 1,
                "expected ';' after record type 'A', found 'RECORD'"
            ),
            ("DEFINE SCHEMA CREATE ROLE Editor", 1, 33, "expected ';' after role 'Editor', found the end of the text"),
            ("DEFINE SCHEMA CREATE TYPE X;", 1, 22, "expected ROLE after CREATE, found 'TYPE'"),
            ("DEFINE SCHEMA CREATE ROLE ;", 1, 27, "expected a role name, found ';'"),
            ("DEFINE SCHEMA RECORD T ( );", 1, 22, "expected TYPE after RECORD, found 'T'"),
            ("DEFINE SCHEMA RECORD TYPE ( );", 1, 27, "expected a record type name, found '('"),
            ("DEFINE SCHEMA RECORD TYPE T x STRING );", 1, 29, "expected '(' after RECORD TYPE T, found 'x'"),
            (
                "DEFINE SCHEMA RECORD TYPE \"grant\" x );", 1, 35,
                "expected '(' after RECORD TYPE \"grant\", found 'x'"
            ),
            (
                "DEFINE SCHEMA RECORD TYPE T ( a STRING", 1, 39,
                "expected ',' or ')' after an item of record type 'T', found the end of the text"
            ),
            (
                "DEFINE SCHEMA /* never closed\n", 1, 15,
                "unterminated comment: expected '*/' before the end of the text"
            ),
            (
                "DEFINE SCHEMA RECORD TYPE \"Note ( x STRING );", 1, 27,
                "unterminated quoted name: expected '\"' before the end of the line"
            ),
            (
                "DEFINE SCHEMA\nRECORD TYPE T ( x STRING! );", 2, 25,
                "unexpected character '!': expected a keyword, a name, '\"', '(', ')', ',', ';', '<' or '>'"
            ),
            (
                "DEFINE SCHEMA\nRECORD TYPE T ( 2x STRING );", 2, 17,
                "unexpected character '2': expected a keyword, a name, '\"', '(', ')', ',', ';', '<' or '>'"
            ),
        ])
    func syntaxErrors(text: String, line: Int, column: Int, message: String) {
        #expect(Self.errors(text) == [SchemaError(line: line, column: column, message: message)])
    }

    @Test(
        arguments: [
            ("a STRING b STRING", 10, "expected ',' or ')' after an item of record type 'T', found 'b'"),
            ("a STRING, ", 12, "expected a field name or GRANT, found ')'"),
            (
                "a", 3,
                "expected a field type (ASSET, BYTES, DOUBLE, ENCRYPTED …, INT64, LIST<…>, LOCATION, NUMBER, REFERENCE, STRING or TIMESTAMP), found ')'"
            ),
            (
                "a TEXT", 3,
                "expected a field type (ASSET, BYTES, DOUBLE, ENCRYPTED …, INT64, LIST<…>, LOCATION, NUMBER, REFERENCE, STRING or TIMESTAMP), found 'TEXT'"
            ),
            ("a LIST STRING", 8, "expected '<' after LIST, found 'STRING'"),
            ("a LIST<LIST<STRING>>", 8, "a list's elements cannot be lists: expected a primitive type"),
            ("a LIST<STRING", 15, "expected '>' after LIST<STRING, found ')'"),
            (
                "a LIST<>", 8,
                "expected a field type (ASSET, BYTES, DOUBLE, ENCRYPTED …, INT64, LIST<…>, LOCATION, NUMBER, REFERENCE, STRING or TIMESTAMP), found '>'"
            ),
            (
                "a ENCRYPTED ASSET", 13,
                "expected BYTES, STRING, DOUBLE, INT64, LOCATION or TIMESTAMP after ENCRYPTED, found 'ASSET'"
            ),
            (
                "a ENCRYPTED REFERENCE", 13,
                "expected BYTES, STRING, DOUBLE, INT64, LOCATION or TIMESTAMP after ENCRYPTED, found 'REFERENCE'"
            ),
            ("a NUMBER PREFERRED INT64", 20, "expected AS after PREFERRED, found 'INT64'"),
            ("a NUMBER PREFERRED AS STRING", 23, "expected INT64 or DOUBLE after PREFERRED AS, found 'STRING'"),
            ("GRANT TO \"_world\"", 7, "expected READ, CREATE or WRITE after GRANT, found 'TO'"),
            ("GRANT READ, TO \"_world\"", 13, "expected READ, CREATE or WRITE after GRANT, found 'TO'"),
            ("GRANT READ \"_world\"", 12, "expected TO after the permissions of GRANT, found '\"_world\"'"),
            ("GRANT READ TO", 15, "expected a role name after TO, found ')'"),
        ])
    func syntaxErrorsInARecordType(body: String, column: Int, message: String) {
        #expect(Self.errors(Self.inType(body)) == [SchemaError(line: 1, column: 30 + column, message: message)])
    }

    @Test(
        arguments: [
            ("sortable STRING", 1, "'sortable' is a reserved word: write it in double quotes, \"sortable\""),
            (
                "GRANTED STRING, Preferred INT64", 17,
                "'Preferred' is a reserved word: write it in double quotes, \"Preferred\""
            ),
            (
                "___recordID REFERENCE QUERYABLE", 1,
                "write the system name '___recordID' in double quotes, \"___recordID\""
            ),
            (
                "\"_secret\" STRING", 1,
                "field 'T._secret': a leading underscore is reserved for the system fields (___createTime, ___createdBy, ___etag, ___modTime, ___modifiedBy, ___recordID)"
            ),
            (
                "\"___etag\" INT64", 1,
                "system field 'T.___etag' is STRING, not INT64: a system field's type cannot change"
            ),
            (
                "\"___recordID\" LIST<REFERENCE>", 1,
                "system field 'T.___recordID' is REFERENCE, not LIST<REFERENCE>: a system field's type cannot change"
            ),
            (
                "\"my field\" STRING", 1,
                "field 'T.my field': a name starts with a letter (a-z, A-Z) and has only letters, digits and '_'"
            ),
            ("\"\" STRING", 1, "field 'T.': a name cannot be empty"),
            ("a STRING, b INT64, a INT64", 20, "field 'T.a' is defined twice"),
            ("a STRING QUERYABLE QUERYABLE", 20, "field 'T.a' is QUERYABLE twice"),
            (
                "a BYTES QUERYABLE", 9,
                "field 'T.a' of type BYTES cannot be QUERYABLE: BYTES values cannot be queried (it takes no index)"
            ),
            (
                "a ASSET SORTABLE", 9,
                "field 'T.a' of type ASSET cannot be SORTABLE: ASSET values cannot be sorted (it takes no index)"
            ),
            (
                "a INT64 SEARCHABLE", 9,
                "field 'T.a' of type INT64 cannot be SEARCHABLE: only a STRING field is searchable (it takes QUERYABLE, SORTABLE)"
            ),
            (
                "a LIST<STRING> SORTABLE", 16,
                "field 'T.a' of type LIST<STRING> cannot be SORTABLE: a list cannot be sorted (it takes QUERYABLE)"
            ),
            (
                "a LIST<STRING> SEARCHABLE", 16,
                "field 'T.a' of type LIST<STRING> cannot be SEARCHABLE: only a STRING field is searchable (it takes QUERYABLE)"
            ),
            (
                "a LIST<BYTES> QUERYABLE", 15,
                "field 'T.a' of type LIST<BYTES> cannot be QUERYABLE: LIST<BYTES> values cannot be queried (it takes no index)"
            ),
            (
                "a ENCRYPTED STRING QUERYABLE", 20,
                "field 'T.a' of type ENCRYPTED STRING cannot be QUERYABLE: CloudKit keeps no index of an encrypted field (it takes no index)"
            ),
            (
                "GRANT READ TO Editors", 15,
                "record type 'T' grants to role 'Editors', which is neither created (CREATE ROLE) nor implicit (_creator, _icloud, _world)"
            ),
            ("GRANT READ TO _world", 15, "write the system name '_world' in double quotes, \"_world\""),
        ])
    func problemsInARecordType(body: String, column: Int, message: String) {
        #expect(Self.errors(Self.inType(body)) == [SchemaError(line: 1, column: 30 + column, message: message)])
    }

    @Test(
        arguments: [
            (
                "DEFINE SCHEMA RECORD TYPE \"_Type\" ( );", 27,
                "record type '_Type': a leading underscore is reserved for system names"
            ),
            (
                "DEFINE SCHEMA RECORD TYPE \"9lives\" ( );", 27,
                "record type '9lives': a name starts with a letter (a-z, A-Z) and has only letters, digits and '_'"
            ),
            (
                "DEFINE SCHEMA RECORD TYPE grant ( );", 27,
                "'grant' is a reserved word: write it in double quotes, \"grant\""
            ),
            ("DEFINE SCHEMA RECORD TYPE T ( ); RECORD TYPE T ( );", 46, "record type 'T' is defined twice"),
            ("DEFINE SCHEMA CREATE ROLE \"_world\";", 27, "role '_world' is implicit and cannot be created"),
            (
                "DEFINE SCHEMA CREATE ROLE \"_admin\";", 27,
                "role '_admin': a leading underscore is reserved for the implicit roles (_creator, _icloud, _world)"
            ),
            (
                "DEFINE SCHEMA CREATE ROLE \"Team Lead\";", 27,
                "role 'Team Lead': a name starts with a letter (a-z, A-Z) and has only letters, digits and '_'"
            ),
            ("DEFINE SCHEMA CREATE ROLE A; CREATE ROLE A;", 42, "role 'A' is created twice"),
        ])
    func problemsWithTypesAndRoles(text: String, column: Int, message: String) {
        #expect(Self.errors(text) == [SchemaError(line: 1, column: column, message: message)])
    }

    @Test func aNameHasAtMost255Characters() {
        let name = "n" + String(repeating: "x", count: 255)
        #expect(
            Self.errors(Self.inType("\(name) STRING"))
                == [SchemaError(line: 1, column: 31, message: "field 'T.\(name)': a name has at most 255 characters")])
        #expect(Self.errors(Self.inType("\(name.dropLast()) STRING")).isEmpty)
    }

    /// Problems that do not stop the parse are all reported, in the order of the text, with
    /// a syntax error after them ending the list.
    @Test func everyProblemIsReportedInOrder() {
        let text = """
            DEFINE SCHEMA
                CREATE ROLE "_world";
                RECORD TYPE Note (
                    title STRING SEARCHABLE QUERYABLE,
                    body BYTES SORTABLE,
                    "___modTime" STRING,
                    GRANT READ TO Nobody
                );
                RECORD TYPE Note ( x STRING y );
            """
        #expect(
            Self.errors(text).map(\.description) == [
                "2:17: role '_world' is implicit and cannot be created",
                "5:20: field 'Note.body' of type BYTES cannot be SORTABLE: BYTES values cannot be sorted (it takes no index)",
                "6:9: system field 'Note.___modTime' is TIMESTAMP, not STRING: a system field's type cannot change",
                "9:17: record type 'Note' is defined twice",
                "9:33: expected ',' or ')' after an item of record type 'Note', found 'y'",
            ])
    }

    @Test func problemsAtOnePositionKeepTheirOrder() {
        #expect(
            Self.errors(Self.inType("_x STRING")).map(\.description) == [
                "1:31: write the system name '_x' in double quotes, \"_x\"",
                "1:31: field 'T._x': a leading underscore is reserved for the system fields (___createTime, ___createdBy, ___etag, ___modTime, ___modifiedBy, ___recordID)",
            ])
    }

    @Test func unknownRolesAreReportedOnceTheWholeTextIsRead() {
        let text = "DEFINE SCHEMA\nRECORD TYPE T ( GRANT READ TO Late, GRANT WRITE TO Never );\nCREATE ROLE Late;"
        #expect(
            Self.errors(text).map(\.description) == [
                "2:52: record type 'T' grants to role 'Never', which is neither created (CREATE ROLE) nor implicit (_creator, _icloud, _world)"
            ])
    }

    @Test func theDescriptionIsOneProblemPerLine() {
        let errors = SchemaErrors([
            SchemaError(line: 1, column: 2, message: "one"), SchemaError(line: 3, column: 4, message: "two"),
        ])
        #expect(errors.description == "1:2: one\n3:4: two")
    }
}
