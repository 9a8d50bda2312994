// Parse and serialize a ~16 MiB records/modify body (the server's default body limit) with
// stratusd's JSON layer; built standalone by scripts/json-bench.sh, not by SwiftPM.
import Foundation

let record: JSONValue = [
    "recordName": "r-0000-1111", "recordType": "Item",
    "fields": [
        "title": ["value": "a fairly ordinary title with some words", "type": "STRING"], "n": ["value": 12_345],
        "d": ["value": 3.14159], "tags": ["value": ["a", "b", "c\u{e9}"]], "esc": ["value": "line\nbreak \"q\""],
    ],
]
let body: JSONValue = [
    "operations": .array(Array(repeating: ["operationType": "create", "record": record], count: 60_000))
]
let bytes = body.serialized()
var parse = Double.infinity
var serialize = Double.infinity
for _ in 0..<5 {
    let start = Date()
    let value = try JSONValue.parse(bytes)
    let parsed = Date()
    let out = value.serialized()
    serialize = min(serialize, Date().timeIntervalSince(parsed))
    parse = min(parse, parsed.timeIntervalSince(start))
    precondition(out == bytes)
}
let mebibytes = Double(bytes.count) / 1_048_576
print(
    String(
        format: "%.1f MiB body: parse %.3f s (%.0f MiB/s), serialize %.3f s (%.0f MiB/s), best of 5",
        mebibytes, parse, mebibytes / parse, serialize, mebibytes / serialize))
