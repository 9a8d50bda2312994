import StratusSchema
import Testing

@Suite("CloudKit Schema Language: the canonical text and the round trip")
struct SchemaPrinterTests {
    @Test func applesExampleInCanonicalForm() throws {
        let schema = try CloudKitSchema.parse(SchemaParserTests.appleExample)
        #expect(
            schema.text == """
                DEFINE SCHEMA

                    CREATE ROLE DeptManager;

                    RECORD TYPE Department (
                        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                        "___recordID" REFERENCE QUERYABLE,
                        address STRING,
                        employees LIST<REFERENCE>,
                        name STRING,
                        phone LIST<STRING>,
                        GRANT READ, CREATE, WRITE TO DeptManager,
                        GRANT WRITE TO "_creator",
                        GRANT CREATE TO "_icloud",
                        GRANT READ TO "_world"
                    );

                    RECORD TYPE Employee (
                        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                        "___recordID" REFERENCE QUERYABLE,
                        address STRING,
                        hiredate TIMESTAMP,
                        name STRING,
                        salary INT64,
                        GRANT WRITE TO "_creator",
                        GRANT CREATE TO "_icloud",
                        GRANT READ TO "_world"
                    );

                """)
        #expect(try CloudKitSchema.parse(schema.text) == schema)
    }

    @Test func aRoleWithoutPermissionsIsLeftOut() throws {
        var type = SchemaRecordType(name: "T", fields: [SchemaField(name: "a", type: .string)])
        type.grants["_world"] = []
        type.grants["_icloud"] = [.create]
        let schema = CloudKitSchema(recordTypes: [type])
        #expect(
            schema.text
                == "DEFINE SCHEMA\n\n    RECORD TYPE T (\n        a STRING,\n        GRANT CREATE TO \"_icloud\"\n    );\n"
        )
        #expect(try CloudKitSchema.parse(schema.text)[recordType: "T"]?.grants == ["_icloud": [.create]])
    }

    @Test func emptySchemaAndEmptyType() {
        #expect(CloudKitSchema().text == "DEFINE SCHEMA\n")
        #expect(
            CloudKitSchema(recordTypes: [SchemaRecordType(name: "Empty")]).text
                == "DEFINE SCHEMA\n\n    RECORD TYPE Empty ();\n")
    }

    @Test func namesAreQuotedWhenTheyMustBe() throws {
        let schema = CloudKitSchema(
            recordTypes: [
                SchemaRecordType(
                    name: "Searchable",
                    fields: [
                        SchemaField(
                            name: "grant", type: .number(preferredAs: .double), indexes: [.sortable, .queryable]),
                        SchemaField(name: "string", type: .list(.encrypted(.timestamp))),
                        SchemaField(name: "___etag", type: .string, indexes: [.searchable]),
                    ],
                    grants: ["Reviewers": [.write, .read], "_world": []])
            ],
            roles: ["Reviewers"])
        #expect(
            schema.text == """
                DEFINE SCHEMA

                    CREATE ROLE Reviewers;

                    RECORD TYPE "Searchable" (
                        "___etag" STRING SEARCHABLE,
                        "grant" NUMBER PREFERRED AS DOUBLE QUERYABLE SORTABLE,
                        string LIST<ENCRYPTED TIMESTAMP>,
                        GRANT READ, WRITE TO Reviewers
                    );

                """)
        #expect(try CloudKitSchema.parse(schema.text) == schema)
    }

    /// The round trip on generated schemas: every type, index, name form and grant, printed
    /// and parsed back to an equal model, and printed again to the same text.
    @Test(arguments: 0..<20)
    func roundTrip(batch: Int) throws {
        for seed in (batch * 50)..<(batch * 50 + 50) {
            var generator = SchemaGenerator(seed: UInt64(seed))
            let schema = generator.schema()
            #expect(schema.problems.isEmpty, "seed \(seed): \(schema.problems)")
            let text = schema.text
            let parsed = try CloudKitSchema.parse(text)
            #expect(parsed == schema, "seed \(seed):\n\(text)")
            #expect(parsed.text == text, "seed \(seed)")
        }
    }

    /// The generator covers what the round trip claims to.
    @Test func theGeneratorCoversEveryFormOfTheLanguage() {
        var types = Set<String>()
        var indexes = Set<SchemaIndex>()
        var quotedNames = 0
        var roles = 0
        for seed in 0..<1000 {
            var generator = SchemaGenerator(seed: UInt64(seed))
            let schema = generator.schema()
            roles += schema.roles.count
            for type in schema.recordTypes.values {
                for field in type.fields.values {
                    types.insert(field.type.text)
                    indexes.formUnion(field.indexes)
                }
            }
            quotedNames += schema.text.split(separator: "\"").count / 2
        }
        #expect(types.count == SchemaGenerator.allTypes.count)
        #expect(indexes == Set(SchemaIndex.allCases))
        #expect(quotedNames > 1000)
        #expect(roles > 100)
    }
}
