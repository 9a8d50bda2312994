import Testing

@testable import StratusServer

/// ``PathSegment``: a path parameter percent-decoded exactly once, malformed `%` sequences and
/// bytes that are not UTF-8 refused, and namespace names that decoding could make dangerous
/// refused too.
@Suite struct PathSegmentTests {
    @Test func decodesOnceAndLeavesEverythingElseAsSent() throws {
        #expect(try PathSegment.decode("iCloud.com.example%2Eapp", name: "container") == "iCloud.com.example.app")
        #expect(try PathSegment.decode("pr%69vate", name: "database") == "private")
        #expect(try PathSegment.decode("a%20b%2fc%20%C3%A9", name: "id") == "a b/c é")
        #expect(try PathSegment.decode("100%2525", name: "id") == "100%25", "decoded once, not twice")
        #expect(try PathSegment.decode("a+b", name: "id") == "a+b", "a path's + is a plus")
        #expect(try PathSegment.decode("plain", name: "id") == "plain")
    }

    @Test func aMalformedSequenceOrBytesThatAreNotUTF8AreRefusedNamingTheSegment() {
        for raw in ["%", "a%4", "%G1", "%4g", "%FF", "%C3", "%C3%28", "%ED%A0%80"] {
            #expect(throws: ServerError.self, "\(raw)") { try PathSegment.decode(raw, name: "container") }
            do {
                _ = try PathSegment.decode(raw, name: "container")
            } catch {
                #expect(error.status.code == 400 && error.serverErrorCode == "BAD_REQUEST")
                #expect(error.reason.contains("path's container segment"), "\(error.reason)")
            }
        }
        do {
            _ = try PathSegment.decode("capability%G1", name: "token")
        } catch {
            #expect(!error.reason.contains("capability"), "the value is never repeated: it may be a token")
        }
    }

    @Test func aNamespaceNameCannotLeaveItsSegment() throws {
        for raw in [".", "..", "%2E", "%2e%2E", "a%2Fb", "a%2F..%2Fb", "a%00", "a%0A", "a%7F", "a%C2%85"] {
            #expect(throws: ServerError.self, "\(raw)") { try PathSegment.namespace(raw, name: "container") }
        }
        #expect(try PathSegment.namespace("iCloud.a..b", name: "container") == "iCloud.a..b")
        #expect(try PathSegment.namespace("d%C3%A9j%C3%A0", name: "container") == "déjà")
    }
}
