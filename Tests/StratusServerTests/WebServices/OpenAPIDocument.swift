import Foundation
import StratusServer
import StratusWebServices

/// `Docs/stratusd.openapi.json` (the JSON copy of `Docs/stratusd.openapi.yaml` that
/// `scripts/openapi-json.sh` writes), read with the server's own JSON parser so integers,
/// doubles and booleans stay apart, and a checker for the part of JSON Schema the document
/// uses: `$ref`, `type`, `nullable`, `enum`, `required`, `properties`,
/// `additionalProperties`, `items`, `maxItems`, `oneOf`, `minLength`, `pattern`, `minimum`.
struct OpenAPIDocument {
    let root: JSONValue

    /// The document in the repository this test file belongs to.
    static func load(filePath: String = #filePath) throws -> OpenAPIDocument {
        var url = URL(fileURLWithPath: filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let data = try Data(contentsOf: url.appendingPathComponent("Docs/stratusd.openapi.json"))
        return OpenAPIDocument(root: try JSONValue.parse(data))
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The document's path template matching `path` (segments in braces match any segment).
    func template(for path: String) -> String? {
        guard case .object(let paths)? = root["paths"] else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return paths.keys.sorted().first { template in
            let parts = template.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == segments.count
                && zip(parts, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }

    /// The operation object for `method` on `path`.
    func operation(_ method: String, _ path: String) throws -> JSONValue {
        guard let template = template(for: path), let operation = root["paths"]?[template]?[method.lowercased()]
        else { throw Missing(description: "the document has no \(method) \(path)") }
        return operation
    }

    /// The response body schema documented for `status` of `method path`.
    func responseSchema(_ method: String, _ path: String, status: Int) throws -> JSONValue {
        let operation = try operation(method, path)
        guard var response = operation["responses"]?[String(status)] else {
            throw Missing(description: "\(method) \(path): status \(status) is not documented")
        }
        response = try resolve(response)
        guard let schema = response["content"]?["application/json"]?["schema"] else {
            throw Missing(description: "\(method) \(path) \(status): no application/json schema")
        }
        return schema
    }

    /// `value` with its `$ref` followed (`#/components/…` only).
    func resolve(_ value: JSONValue) throws -> JSONValue {
        guard case .string(let reference)? = value["$ref"] else { return value }
        var node: JSONValue? = root
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        guard let node else { throw Missing(description: "unresolved \(reference)") }
        return try resolve(node)
    }
}

extension OpenAPIDocument {
    /// The problems of `value` against `schema`, each with its JSON pointer; empty when valid.
    func problems(_ value: JSONValue, _ schema: JSONValue, at pointer: String = "") -> [String] {
        guard let schema = try? resolve(schema) else { return ["\(pointer): unresolvable schema"] }
        if value == .null, schema["nullable"] == .bool(true) { return [] }
        if case .array(let choices)? = schema["oneOf"] {
            let matching = choices.filter { problems(value, $0, at: pointer).isEmpty }.count
            if matching != 1 { return ["\(pointer): matches \(matching) of oneOf's \(choices.count) schemas"] }
        }
        if case .array(let allowed)? = schema["enum"], !allowed.contains(value) {
            return ["\(pointer): \(value) is not one of \(allowed)"]
        }
        if case .string(let type)? = schema["type"], !Self.value(value, is: type) {
            return ["\(pointer): expected \(type), found \(value.kindDescription)"]
        }
        switch value {
        case .object(let members): return objectProblems(members, schema, at: pointer)
        case .array(let items): return arrayProblems(items, schema, at: pointer)
        case .string(let text): return stringProblems(text, schema, at: pointer)
        case .integer(let number): return numberProblems(Double(number), schema, at: pointer)
        case .double(let number): return numberProblems(number, schema, at: pointer)
        default: return []
        }
    }

    private static func value(_ value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool),
            ("integer", .integer), ("number", .integer), ("number", .double):
            return true
        case ("integer", .double(let number)): return number.rounded() == number
        default: return false
        }
    }

    private func objectProblems(_ members: [String: JSONValue], _ schema: JSONValue, at pointer: String) -> [String] {
        var found: [String] = []
        if case .array(let required)? = schema["required"] {
            for case .string(let key) in required where members[key] == nil {
                found.append("\(pointer): missing required \(key)")
            }
        }
        let properties: [String: JSONValue]
        if case .object(let declared)? = schema["properties"] { properties = declared } else { properties = [:] }
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            if let property = properties[key] {
                found += problems(member, property, at: "\(pointer)/\(key)")
            } else if let extra = schema["additionalProperties"] {
                if extra == .bool(false) {
                    found.append("\(pointer): \(key) is not in the document")
                } else if case .object = extra {
                    found += problems(member, extra, at: "\(pointer)/\(key)")
                }
            }
        }
        return found
    }

    private func arrayProblems(_ items: [JSONValue], _ schema: JSONValue, at pointer: String) -> [String] {
        var found: [String] = []
        if case .integer(let limit)? = schema["maxItems"], items.count > Int(limit) {
            found.append("\(pointer): \(items.count) items, at most \(limit)")
        }
        if let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() { found += problems(item, itemSchema, at: "\(pointer)/\(index)") }
        }
        return found
    }

    private func stringProblems(_ text: String, _ schema: JSONValue, at pointer: String) -> [String] {
        if case .integer(let minimum)? = schema["minLength"], text.count < Int(minimum) {
            return ["\(pointer): shorter than \(minimum)"]
        }
        if case .string(let pattern)? = schema["pattern"],
            text.range(of: pattern, options: .regularExpression) == nil
        {
            return ["\(pointer): \"\(text)\" does not match \(pattern)"]
        }
        return []
    }

    private func numberProblems(_ number: Double, _ schema: JSONValue, at pointer: String) -> [String] {
        if case .integer(let minimum)? = schema["minimum"], number < Double(minimum) {
            return ["\(pointer): \(number) is below \(minimum)"]
        }
        return []
    }
}
