import Foundation

/// The peer's shapes against a `stratusd` over CloudKit Web Services, on one keep-alive
/// connection, in the private database of the session's user: a custom zone per run, records
/// with the peer's payload, change reads with `records/changes` and sync tokens.
struct HTTPPeerWorkload {
    let server: StratusdServer
    let client: LoopbackHTTPClient
    let records: Int

    init(server: StratusdServer, records: Int) throws {
        self.server = server
        self.client = try LoopbackHTTPClient(port: server.port)
        self.records = records
    }

    /// One run of every shape into `timings`.
    func run(_ number: Int, into timings: inout PeerShapeTimings) throws {
        let zone = "single\(number)"
        try makeZone(zone)
        let start = try changes(zone, since: nil, limit: 1).token
        var half: String?
        var seconds = 0.0
        for index in 0..<records {
            seconds += try Timing.seconds { try create([index], in: zone) }
            if index == records / 2 - 1 { half = try changes(zone, since: start, limit: 2000, all: true).token }
        }
        timings.add(.createSingle, seconds)
        timings.add(.getByID, try Timing.seconds { for index in 0..<records { try lookUp(index, in: zone) } })
        try time(.sinceAll, zone, since: start, limit: records, expect: records, into: &timings)
        try time(.sinceHalf, zone, since: half, limit: records, expect: records - records / 2, into: &timings)
        try time(.sincePaged, zone, since: start, limit: PeerShape.pageSize, expect: records, into: &timings)
        let bulk = "bulk\(number)"
        try makeZone(bulk)
        timings.add(
            .createBatch,
            try Timing.seconds {
                for first in stride(from: 0, to: records, by: PeerShape.batchSize) {
                    try create(Array(first..<min(first + PeerShape.batchSize, records)), in: bulk)
                }
            })
    }

    /// Repeats `shape` on run 0's zones (creates go to a new zone) for `seconds`; the rate in
    /// records/s. For profiling one shape (`--loop`).
    func repeatShape(_ shape: PeerShape, seconds: Double) throws -> Double {
        let zone = "single0"
        let start = try changes(zone, since: nil, limit: 1).token
        if shape == .createSingle || shape == .createBatch { try makeZone("loop") }
        var done = 0
        var index = records
        let began = Date()
        while Date().timeIntervalSince(began) < seconds {
            switch shape {
            case .createSingle:
                try create([index], in: "loop")
                index += 1
                done += 1
            case .createBatch:
                try create(Array(index..<index + PeerShape.batchSize), in: "loop")
                index += PeerShape.batchSize
                done += PeerShape.batchSize
            case .getByID:
                try lookUp(done % records, in: zone)
                done += 1
            case .sinceAll, .sinceHalf:
                done += try changes(zone, since: start, limit: records, all: true).count
            case .sincePaged:
                done += try changes(zone, since: start, limit: PeerShape.pageSize, all: true).count
            }
        }
        return Double(done) / Date().timeIntervalSince(began)
    }

    private func time(
        _ shape: PeerShape, _ zone: String, since token: String?, limit: Int, expect: Int,
        into timings: inout PeerShapeTimings
    ) throws {
        var got = 0
        timings.add(shape, try Timing.seconds { got = try changes(zone, since: token, limit: limit, all: true).count })
        guard got == expect else { throw BenchmarkFailure("\(shape.rawValue): \(got) changes, not \(expect)") }
    }

    private func post(_ operation: String, _ body: String) throws -> [UInt8] {
        let response = try client.send("POST", server.path(operation), body: Array(body.utf8))
        guard response.status == 200, !response.body.containsSubsequence(Self.errorMarker) else {
            throw BenchmarkFailure("\(operation): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return response.body
    }

    private static let errorMarker = Array("serverErrorCode".utf8)

    private func makeZone(_ zone: String) throws {
        _ = try post(
            "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#)
    }

    private func create(_ indices: [Int], in zone: String) throws {
        let operations = indices.map { index in
            #"{"operationType":"create","record":{"recordName":"r\#(index)","recordType":"Item","fields":"#
                + #"{"title":{"value":"\#(PeerPayload.title(index))"},"blob":{"value":"\#(PeerPayload.blob(index))"}}}}"#
        }
        _ = try post(
            "records/modify",
            #"{"zoneID":{"zoneName":"\#(zone)"},"operations":[\#(operations.joined(separator: ","))]}"#)
    }

    private func lookUp(_ index: Int, in zone: String) throws {
        _ = try post("records/lookup", #"{"zoneID":{"zoneName":"\#(zone)"},"records":[{"recordName":"r\#(index)"}]}"#)
    }

    /// Reads the zone's changes after `token` (`nil`: all), `limit` per response, following
    /// `moreComing` when `all`; returns how many records came and the last token. The answer
    /// is scanned, not parsed: a client's JSON parser (Foundation's, here) is not the server's
    /// cost.
    private func changes(_ zone: String, since token: String?, limit: Int, all: Bool = false) throws
        -> (count: Int, token: String)
    {
        var token = token
        var count = 0
        while true {
            let since = token.map { #","syncToken":"\#($0)""# } ?? ""
            let body = try post(
                "records/changes", #"{"zoneID":{"zoneName":"\#(zone)"},"resultsLimit":\#(limit)\#(since)}"#)
            guard let next = ChangesScan.syncToken(in: body) else {
                throw BenchmarkFailure("records/changes: no syncToken in the answer")
            }
            count += ChangesScan.occurrences(of: ChangesScan.recordName, in: body)
            token = next
            guard all, ChangesScan.occurrences(of: ChangesScan.moreComing, in: body) > 0 else { return (count, next) }
        }
    }
}

/// What the benchmark reads from a `records/changes` answer, found in its bytes: records
/// (one `"recordName":` each, as no record here is deleted), `moreComing` and the token.
/// The searches are `memchr` for a rare byte of the needle and `memcmp` (a byte-by-byte Swift
/// loop over slices took 2.5–5 ms of a 1 MB answer, see Performance.md).
enum ChangesScan {
    static let recordName = Array(#""recordName":"#.utf8)
    static let moreComing = Array(#""moreComing":true"#.utf8)
    static let syncTokenKey = Array(#""syncToken":""#.utf8)

    /// How many times `needle` occurs in `bytes`.
    static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        var count = 0
        var index = 0
        while let found = find(needle, in: bytes, from: index) {
            count += 1
            index = found + needle.count
        }
        return count
    }

    /// The `syncToken` string's value.
    static func syncToken(in bytes: [UInt8]) -> String? {
        guard let start = find(syncTokenKey, in: bytes, from: 0).map({ $0 + syncTokenKey.count }),
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The offset of the first `needle` in `bytes` at or after `start`. `memchr` looks for the
    /// needle's first capital letter (`N` of `"recordName":`, four in a record's dictionary),
    /// then `memcmp` compares the whole: looking for its first byte, `"`, stopped at every string
    /// of the answer and cost the client 5 ms of CPU per 1 MB answer.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start < bytes.count else { return nil }
        let anchor = needle.firstIndex { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } ?? 0
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                let base = haystack.baseAddress!
                let last = haystack.count - pattern.count  // the last offset a match can start at
                var index = start
                while index <= last {
                    guard let hit = memchr(base + index + anchor, Int32(needle[anchor]), last - index + 1)
                    else { return nil }
                    let offset = base.distance(to: UnsafeRawPointer(hit)) - anchor
                    if memcmp(base + offset, pattern.baseAddress!, pattern.count) == 0 { return offset }
                    index = offset + 1
                }
                return nil
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes.
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        ChangesScan.find(needle, in: self, from: 0) != nil
    }
}
