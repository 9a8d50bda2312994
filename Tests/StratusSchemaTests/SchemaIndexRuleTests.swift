import StratusSchema
import Testing

@Suite("CloudKit Schema Language: which indexes each type takes, and just-in-time defaults")
struct SchemaIndexRuleTests {
    @Test(
        arguments: [
            (SchemaFieldType.string, [SchemaIndex.queryable, .sortable, .searchable]),
            (.int64, [.queryable, .sortable]), (.double, [.queryable, .sortable]),
            (.number(preferredAs: nil), [.queryable, .sortable]),
            (.number(preferredAs: .double), [.queryable, .sortable]),
            (.timestamp, [.queryable, .sortable]), (.reference, [.queryable, .sortable]),
            (.location, [.queryable, .sortable]), (.bytes, []), (.asset, []),
            (.encrypted(.string), []), (.encrypted(.int64), []), (.encrypted(.timestamp), []),
            (.list(.string), [.queryable]), (.list(.int64), [.queryable]), (.list(.reference), [.queryable]),
            (.list(.timestamp), [.queryable]), (.list(.location), [.queryable]),
            (.list(.number(preferredAs: .int64)), [.queryable]), (.list(.bytes), []), (.list(.asset), []),
            (.list(.encrypted(.string)), []),
        ])
    func permittedIndexes(type: SchemaFieldType, indexes: [SchemaIndex]) {
        #expect(type.permittedIndexes == Set(indexes))
        #expect(type.justInTimeIndexes == Set(indexes))
        for index in SchemaIndex.allCases {
            #expect((type.problem(with: index, field: "f", in: "T") == nil) == indexes.contains(index))
        }
    }

    @Test func justInTimeFieldsCarryEveryPermittedIndex() {
        #expect(
            SchemaField.justInTime(name: "title", type: .string)
                == SchemaField(name: "title", type: .string, indexes: [.queryable, .sortable, .searchable]))
        #expect(SchemaField.justInTime(name: "photo", type: .asset).indexes.isEmpty)
        #expect(SchemaField.justInTime(name: "tags", type: .list(.string)).indexes == [.queryable])
    }

    @Test func systemFields() {
        #expect(
            SchemaField.systemFields == [
                "___createTime": .timestamp, "___createdBy": .reference, "___etag": .string, "___modTime": .timestamp,
                "___modifiedBy": .reference, "___recordID": .reference,
            ])
        #expect(SchemaField(name: "___etag", type: .string).isSystemField)
        #expect(!SchemaField(name: "etag", type: .string).isSystemField)
    }

    @Test func indexesOfAField() throws {
        let department = try #require(
            try CloudKitSchema.parse(SchemaParserTests.appleExample)[recordType: "Department"])
        #expect(department.indexes(ofField: "___createTime") == [.queryable, .sortable])
        #expect(department.indexes(ofField: "___modTime") == [])
        #expect(department.indexes(ofField: "name") == [])
        #expect(department.indexes(ofField: "salary") == nil)
    }

    @Test func fieldTypeText() {
        #expect(SchemaFieldType.list(.encrypted(.location)).text == "LIST<ENCRYPTED LOCATION>")
        #expect(SchemaFieldType.number(preferredAs: .int64).text == "NUMBER PREFERRED AS INT64")
        #expect(SchemaFieldType.list(.bytes).isList)
        #expect(!SchemaFieldType.bytes.isList)
    }

    /// A schema built in code is checked with the parser's rules, without positions.
    @Test func problemsOfASchemaBuiltInCode() throws {
        let schema = CloudKitSchema(
            recordTypes: [
                SchemaRecordType(
                    name: "Note",
                    fields: [
                        SchemaField(name: "body", type: .bytes, indexes: [.queryable]),
                        SchemaField(name: "___etag", type: .int64),
                        SchemaField(name: "_hidden", type: .string),
                        SchemaField(name: "ok", type: .string, indexes: [.searchable]),
                    ],
                    grants: ["Ghost": [.read], "_world": [.read]]),
                SchemaRecordType(name: "bad name"),
            ],
            roles: ["_icloud", "Editor"])
        #expect(
            schema.problems == [
                "role '_icloud' is implicit and cannot be created",
                "system field 'Note.___etag' is STRING, not INT64: a system field's type cannot change",
                "field 'Note._hidden': a leading underscore is reserved for the system fields (___createTime, ___createdBy, ___etag, ___modTime, ___modifiedBy, ___recordID)",
                "field 'Note.body' of type BYTES cannot be QUERYABLE: BYTES values cannot be queried (it takes no index)",
                "record type 'Note' grants to role 'Ghost', which is neither created (CREATE ROLE) nor implicit (_creator, _icloud, _world)",
                "record type 'bad name': a name starts with a letter (a-z, A-Z) and has only letters, digits and '_'",
            ])
        #expect(try CloudKitSchema.parse(SchemaParserTests.appleExample).problems.isEmpty)
    }
}
