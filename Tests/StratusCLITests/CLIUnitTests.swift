import Foundation
import Stratus
import StratusConformance
import Testing

@testable import StratusCLI

@Suite("stratus: parsing")
struct CLIUnitTests {
    let zone = CKRecordZone.ID(zoneName: "Z")

    @Test func fieldSyntax() throws {
        #expect(try FieldSyntax.parse("title=a=b", zoneID: zone).value as? String == "a=b")
        #expect(try FieldSyntax.parse("n:int=-3", zoneID: zone).value as? Int == -3)
        #expect(try FieldSyntax.parse("n:INT64=3", zoneID: zone).value as? Int64 == 3)
        #expect(try FieldSyntax.parse("ok:bool=yes", zoneID: zone).value as? Bool == true)
        #expect(
            try FieldSyntax.parse("d:date=2026-01-01", zoneID: zone).value as? Date
                == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(try FieldSyntax.parse("e:string-list=", zoneID: zone).value as? [String] == [])
        #expect(try FieldSyntax.parse("l:string-list=a\\,b,c\\\\", zoneID: zone).value as? [String] == ["a,b", "c\\"])
        let reference = try #require(
            try FieldSyntax.parse("r:reference-delete-self=x", zoneID: zone).value as? CKRecord.Reference)
        #expect(reference.recordID == CKRecord.ID(recordName: "x", zoneID: zone))
        #expect(reference.action == .deleteSelf)
        #expect(throws: CLIError.self) { try FieldSyntax.parse("u:uint8=256", zoneID: zone) }
        #expect(throws: CLIError.self) { try FieldSyntax.parse(":int=1", zoneID: zone) }
        #expect(throws: CLIError.self) { try FieldSyntax.parse("p:location=91,0", zoneID: zone) }
    }

    @Test func renderedFieldsParseBack() throws {
        for text in ["n:int=3", "t=hello", "d:date=2026-01-01T00:00:00Z", "l:int-list=1,2", "s:string-list=a\\,b,c"] {
            let (name, value) = try FieldSyntax.parse(text, zoneID: zone)
            #expect(RecordText.assignment(name, value) == text)
        }
    }

    @Test func globalOptionsAreHoisted() {
        #expect(
            GlobalOptions.hoisting(["--backend", "memory:", "--json", "zones", "list"])
                == ["zones", "list", "--backend", "memory:", "--json"])
        #expect(
            GlobalOptions.hoisting(["--backend=memory:", "zones", "list"]) == ["zones", "list", "--backend=memory:"])
        #expect(GlobalOptions.hoisting(["zones", "list", "--json"]) == ["zones", "list", "--json"])
        #expect(GlobalOptions.hoisting(["--help"]) == ["--help"])
        #expect(
            GlobalOptions.hoisting(["--server", "http://h:1", "--credentials-file=c.json", "zones", "list"])
                == ["zones", "list", "--server", "http://h:1", "--credentials-file=c.json"])
        #expect(
            GlobalOptions.hoisting(["--json", "records", "create", "--", "-x=1"])
                == ["records", "create", "--json", "--", "-x=1"])
    }
}

@Suite("stratus: conformance summary")
struct ConformanceSummaryTests {
    @Test func tableListsFailuresWithCaseIDAndMessage() {
        let failure = ConformanceFailure(
            caseID: "kv.scan.limit", step: "scan with limit 2", expected: "2 pairs", actual: "3 pairs", trace: [])
        let summary = ConformanceSummary(
            backend: "memory:",
            results: [
                .init(id: "kv.basic.setThenGet", index: 0, failure: nil, seconds: 0.01),
                .init(id: "kv.scan.limit", index: 1, failure: failure, seconds: 0.02),
            ], seconds: 0.5)
        #expect(summary.passed == 1)
        #expect(summary.failed == 1)
        let lines = summary.table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Conformance of 'memory:': 2 cases in 0.5 s")
        #expect(lines.contains("  passed      1"))
        #expect(lines.contains("  failed      1"))
        #expect(lines.contains("  kv.scan.limit  at 'scan with limit 2': expected 2 pairs, got 3 pairs"))
    }
}
